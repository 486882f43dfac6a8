package loopdrive

import (
	"strings"
	"testing"
)

// TestMergeMessage: "after 1 iteration", not "after 1 iterations".
func TestMergeMessage(t *testing.T) {
	if got := mergeMessage("Fix", "r1", 1, "squash", "run/fix"); !strings.HasSuffix(got, "completed after 1 iteration: squash of run/fix.") {
		t.Errorf("one iteration: %q", got)
	}
	if got := mergeMessage("Fix", "r1", 3, "merge", "run/fix"); !strings.HasSuffix(got, "completed after 3 iterations: merge of run/fix.") {
		t.Errorf("three: %q", got)
	}
}
