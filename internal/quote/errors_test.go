package quote

import (
	"errors"
	"testing"
)

func TestErrors(t *testing.T) {
	if Errors(nil) != nil {
		t.Error("no errors joined into one")
	}
	a, b := errors.New("a failed"), errors.New("b failed")
	err := Errors([]error{a, b})
	if err.Error() != "a failed; b failed" || !errors.Is(err, a) || !errors.Is(err, b) {
		t.Errorf("Errors = %q, want both on one line, each still found by errors.Is", err)
	}
}
