package retention

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/treelock"
)

// A clean removes the work tree locks of the runs that are gone, unless a
// driver holds one: each tree ever run in (every --worktree run's own)
// left a lock in trees/ for good, after its run had been cleaned.
func TestCleanSweepsTreeLocksOfGoneRuns(t *testing.T) {
	st := newStore(t)
	makeRun(t, st, "old", 30, "completed")
	makeRun(t, st, "kept", 0, "completed")
	dir := filepath.Join(st.Root, treelock.Dir)
	if err := os.MkdirAll(dir, store.DirMode); err != nil {
		t.Fatal(err)
	}
	lock := func(name, note string) string {
		p := filepath.Join(dir, name+".lock")
		if err := os.WriteFile(p, []byte(note+"\n"), store.FileMode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gone := []string{lock("a", "old"), lock("b", "never-made")}
	stays := []string{lock("c", "kept"), lock("d", "starting")}
	held, err := store.LockFile(stays[1], true, false) // a driver about to make its run
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()

	clean(t, st, Options{Policy: defaults, DryRun: true, Now: time.Now()})
	for _, p := range append(gone, stays...) {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("the dry run removed %s", filepath.Base(p))
		}
	}
	if _, got := clean(t, st, Options{Policy: defaults, Now: time.Now()}); got["old"].Action != Delete {
		t.Errorf("old: %+v, want it deleted", got["old"])
	}
	for _, p := range gone {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s, the lock of a run that is gone, was left", filepath.Base(p))
		}
	}
	for _, p := range stays {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s removed: %v", filepath.Base(p), err)
		}
	}
}
