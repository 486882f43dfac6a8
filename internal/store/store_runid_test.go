package store

import (
	"regexp"
	"strings"
	"testing"
)

// The hand-written check accepts exactly what the pattern it replaced did.
func TestValidRunIDChars(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
	cases := []string{"", "a", "A9", "0", ".a", "-a", "_a", "a.b_c-d", "a/b", "a b", "é", "a\x00",
		strings.Repeat("a", 128), strings.Repeat("a", 129), "a..b", "run-20261123", "a\n"}
	for c := 0; c < 256; c++ {
		cases = append(cases, "x"+string(rune(c)), string([]byte{byte(c)}))
	}
	for _, id := range cases {
		if got, want := validRunIDChars(id), re.MatchString(id); got != want {
			t.Errorf("validRunIDChars(%q) = %v, the pattern says %v", id, got, want)
		}
	}
}
