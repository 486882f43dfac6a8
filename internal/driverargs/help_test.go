package driverargs

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// The driver's help fits 80 columns however it was typed: run by a long
// absolute path, its usage lines named that path and reached 97 columns.
func TestHelpFitsAnyPath(t *testing.T) {
	for _, prog := range []string{"loop", "scripts/loop", "/home/someone/src/github.com/loopkit/loopkit/scripts/loop"} {
		t.Setenv(progEnv, prog)
		for i, l := range strings.Split(Help(), "\n") {
			if w := utf8.RuneCountInString(l); w > 80 {
				t.Errorf("typed as %s: line %d is %d columns: %q", prog, i+1, w, l)
			}
		}
	}
	t.Setenv(progEnv, "scripts/loop")
	if !strings.HasPrefix(Help(), "usage: scripts/loop run") {
		t.Errorf("typed as scripts/loop, the help names another:\n%s", Help())
	}
}
