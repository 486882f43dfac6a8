package merge

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// besideGit puts a git on PATH that, the first time loopkit commits the
// run's work, stands in for the person at work in the primary: an edit of
// README staged there (git add), after the merge's check of the primary
// and before the merge itself.
func besideGit(t *testing.T, r *repo) {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	bin := t.TempDir()
	mark := filepath.Join(bin, "done")
	script := "#!/bin/sh\n" +
		"case \" $* \" in *\" " + r.wt + " \"*\" commit \"*) [ -e '" + mark + "' ] || { : > '" + mark + "'; " +
		"echo 'the person, meanwhile' >> '" + filepath.Join(r.primary, "README") + "'; '" + real + "' -C '" + r.primary + "' add README; } ;; esac\n" +
		"exec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// A change the person stages in the primary while the merge runs is
// neither committed as the loop's nor wiped: the merge stops before it
// moves anything, naming the path, and the staged edit stays as it was.
func TestPersonStagesDuringMerge(t *testing.T) {
	for _, strategy := range []string{Squash, Merge} {
		t.Run(strategy, func(t *testing.T) {
			r := newRepo(t)
			r.git(r.primary, "branch", "agent/feat")
			besideGit(t, r)
			_, err := Run(r.spec(strategy))
			if err == nil || !strings.Contains(err.Error(), "README") {
				t.Errorf("merge over the person's staged README: %v, want a refusal naming it", err)
			}
			if got := r.git(r.primary, "show", "agent/feat:README"); strings.Contains(got, "meanwhile") {
				t.Errorf("the person's staged edit was committed as the loop's: %q", got)
			}
			if got := r.git(r.primary, "status", "--porcelain", "--untracked-files=no"); got != "M  README" {
				t.Errorf("the person's staged edit: status %q, want it staged as they left it", got)
			}
			if got, _ := os.ReadFile(filepath.Join(r.primary, "README")); !strings.Contains(string(got), "meanwhile") {
				t.Errorf("the person's edit is gone from README: %q", got)
			}
			if got := r.git(r.primary, "symbolic-ref", "--short", "HEAD"); got != "main" {
				t.Errorf("left on %s, want main", got)
			}
		})
	}
}
