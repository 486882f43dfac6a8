package driverargs

import (
	"github.com/loopkit/loopkit/internal/runconfig"
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

// Every flag `loop run` takes is in its help, --config FILE included, and
// the help gives the order the settings are read in as Resolve reads them:
// --hook-timeout, --rate-limit-backoff and --config were taken but not
// listed, and the help said the store's config came before LOOP_CONFIG's
// file while that file wins over the store's.
func TestHelpListsEveryFlag(t *testing.T) {
	t.Setenv(progEnv, "loop")
	help := Help()
	for _, f := range runconfig.Fields() {
		if f.Flag != "" && !strings.Contains(help, "  --"+f.Flag+" ") && !strings.Contains(help, "  --"+f.Flag+"\n") {
			t.Errorf("loop run takes --%s, its help does not list it", f.Flag)
		}
	}
	if !strings.Contains(help, "  --config FILE ") {
		t.Errorf("loop run takes --config FILE, its help does not list it")
	}
	flat := strings.Join(strings.Fields(help), " ")
	if !strings.Contains(flat, "> --config FILE or LOOP_CONFIG's file > the store's config > defaults") {
		t.Errorf("the help's order of settings is not Resolve's:\n%s", help)
	}
}
