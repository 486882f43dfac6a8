package gitstore

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The store's indexes (a run's git/index, a step base's in the spool) sit
// in the workspace when the store does: an agent that marks a file
// assume-unchanged there would have its change to that file missing from
// every snapshot. An index loopkit did not write is not used.
func TestPlantedIndexHidesNothing(t *testing.T) {
	repo := committedRepo(t, "a\n")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	where, err := Locate(repo)
	if err != nil {
		t.Fatal(err)
	}
	blob := func(text string) string {
		cmd := exec.Command("git", "hash-object", "--stdin")
		cmd.Stdin = strings.NewReader(text)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	hide := func(index string) {
		t.Helper()
		cmd := exec.Command("git", "update-index", "--assume-unchanged", "a.txt")
		cmd.Dir, cmd.Env = repo, append(os.Environ(), "GIT_INDEX_FILE="+index)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v %s", err, out)
		}
	}
	recorded := func(r *Repo, tree string) string {
		t.Helper()
		return run(t, repo, "git", "--git-dir", r.GitDir, "rev-parse", tree+":a.txt")
	}
	// the step's base index in the spool, planted during the step
	odb := filepath.Join(t.TempDir(), "odb")
	write(t, repo, "a.txt", "b\n", 0o644)
	if _, _, _, err := Base(repo, odb, "", nil); err != nil {
		t.Fatal(err)
	}
	hide(filepath.Join(odb, "index"))
	write(t, repo, "a.txt", "cc\n", 0o644)
	r, tree, err := AfterStep(filepath.Join(t.TempDir(), "r"), where, odb)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(recorded(r, tree)); got != blob("cc\n") {
		t.Errorf("after a planted base index: a.txt recorded as %s, want %s", got, blob("cc\n"))
	}
	// the run's own index, planted between snapshots
	hide(filepath.Join(r.GitDir, "index"))
	write(t, repo, "a.txt", "ddd\n", 0o644)
	if tree, err = r.Snapshot(where); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(recorded(r, tree)); got != blob("ddd\n") {
		t.Errorf("after a planted run index: a.txt recorded as %s, want %s", got, blob("ddd\n"))
	}
}
