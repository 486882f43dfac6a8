package gitstore

import (
	"os"
	"path/filepath"
	"testing"
)

// The agent starts once the base snapshot has read the work tree (staged)
// and may at once move the store away and put a link to another folder
// in its place. The run's git directory the snapshot made for a run that
// had none was made after that, by path, through the link: the other
// folder got runs/RUN/git/... (loop_store_swapped failed now and then
// under load). Here the swap is made exactly when the agent may start.
func TestBaseMakesNothingThroughASwappedStore(t *testing.T) {
	repo := committedRepo(t, "a\n")
	write(t, repo, "a.txt", "changed\n", 0o644) // dirty: a commit of its own
	top := t.TempDir()
	store, elsewhere := filepath.Join(top, "store"), filepath.Join(top, "elsewhere")
	runDir := filepath.Join(store, "runs", "r")
	if err := os.MkdirAll(filepath.Join(store, "spool"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(runDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(elsewhere, 0o700); err != nil {
		t.Fatal(err)
	}
	swap := func() {
		if err := os.Rename(store, filepath.Join(top, "stolen")); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(elsewhere, store); err != nil {
			t.Error(err)
		}
	}
	Base(repo, filepath.Join(store, "spool", "s.git"), runDir, swap) // fails: its store is gone
	ents, err := os.ReadDir(elsewhere)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		t.Errorf("%s made in the folder the store's link names", e.Name())
	}
	if _, err := Open(filepath.Join(top, "stolen", "runs", "r")); err != nil {
		t.Errorf("the run's git directory, made before the agent started: %v", err)
	}
}
