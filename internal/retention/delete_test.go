package retention

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/loopkit/loopkit/internal/store"
)

// A symlink inside a run is removed as a link, and a run directory that is
// itself a symlink is never read through (kept as unreadable): what they
// point at, outside the store, stays as it was.
func TestCleanSymlinkEscape(t *testing.T) {
	st := newStore(t)
	user := t.TempDir()
	os.MkdirAll(filepath.Join(user, "src", "deep"), 0o755)
	os.WriteFile(filepath.Join(user, "src", "main.go"), []byte("package main\n"), 0o644)
	os.WriteFile(filepath.Join(user, "src", "deep", "data"), []byte("precious\n"), 0o644)
	linked := t.TempDir() // a directory of the user's that looks like an old run
	writeRunJSON(t, linked, "linked", time.Now().Add(-30*24*time.Hour).UnixMilli())
	os.WriteFile(filepath.Join(linked, "keep.txt"), []byte("mine\n"), 0o644)
	userBefore, linkedBefore := treeHash(t, user), treeHash(t, linked)

	makeRun(t, st, "old", 30, "completed")
	for name, target := range map[string]string{
		"iterations/001/workspace":  user,                                  // a directory outside
		"file-link":                 filepath.Join(user, "src", "main.go"), // a file outside
		"context/context_latest.md": "c.md",                                // a relative link inside
		"up":                        "../../..",                            // relative, escaping
	} {
		if err := os.Symlink(target, st.RunPath("old", name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(linked, st.RunDir("linked")); err != nil {
		t.Fatal(err)
	}
	makeRun(t, st, "fresh", 0, "completed")

	rep, got := clean(t, st, Options{Policy: defaults})
	if got["old"].Action != Delete || got["linked"].Reason != ReasonUnreadable || got["fresh"].Action != Keep {
		t.Fatalf("decisions: %+v", got)
	}
	if rep.Deleted != 1 || rep.Failed != 0 {
		t.Errorf("report: %+v", rep)
	}
	if _, err := os.Lstat(st.RunDir("old")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("run old still there: %v", err)
	}
	if after := treeHash(t, user); after != userBefore {
		t.Errorf("user's directory changed:\n%s\nwant:\n%s", after, userBefore)
	}
	if after := treeHash(t, linked); after != linkedBefore {
		t.Errorf("symlinked run's target changed:\n%s\nwant:\n%s", after, linkedBefore)
	}
	if !st.RunExists("fresh") {
		t.Error("fresh run deleted")
	}
	assertNoTombstones(t, st)
}

func assertNoTombstones(t *testing.T, st *store.Store) {
	t.Helper()
	tombs, _ := filepath.Glob(filepath.Join(st.RunsDir(), store.TombPrefix+"*"))
	if len(tombs) > 0 {
		t.Errorf("tombstones left: %v", tombs)
	}
}

// A killed clean's tombstone is finished by the next clean; a second clean
// changes nothing.
func TestCleanFinishesTombstonesAndIsIdempotent(t *testing.T) {
	st := newStore(t)
	makeRun(t, st, "a", 30, "completed")
	makeRun(t, st, "b", 1, "completed")
	// What a clean killed after its rename leaves: a tombstone, half removed.
	makeRun(t, st, "killed", 30, "completed")
	tomb := filepath.Join(st.RunsDir(), store.TombPrefix+"killed-123")
	if err := os.Rename(st.RunDir("killed"), tomb); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(tomb, store.IterationsDir))

	// the dry run frees on paper what the clean then frees: the
	// tombstone's bytes were left out of its would_free
	dry, _ := clean(t, st, Options{Policy: defaults, DryRun: true})
	rep, got := clean(t, st, Options{Policy: defaults})
	if dry.Freed != rep.Freed || dry.Tombstones != rep.Tombstones {
		t.Errorf("dry run would free %d bytes of %d tombstones, the clean freed %d of %d", dry.Freed, dry.Tombstones, rep.Freed, rep.Tombstones)
	}
	if rep.Tombstones != 1 || rep.Deleted != 1 || got["a"].Action != Delete || got["b"].Action != Keep {
		t.Fatalf("first clean: %+v %+v", rep, got)
	}
	if _, ok := got["killed"]; ok {
		t.Error("a tombstone was reported as a run")
	}
	assertNoTombstones(t, st)

	before := treeHash(t, st.RunsDir())
	rep, got = clean(t, st, Options{Policy: defaults})
	if rep.Deleted != 0 || rep.Tombstones != 0 || len(got) != 1 || got["b"].Action != Keep {
		t.Fatalf("second clean: %+v %+v", rep, got)
	}
	if after := treeHash(t, st.RunsDir()); after != before {
		t.Errorf("second clean changed runs/:\n%s\nwant:\n%s", after, before)
	}
}

func TestDryRunDeletesNothing(t *testing.T) {
	st := newStore(t)
	makeRun(t, st, "old", 30, "completed")
	makeRun(t, st, "new", 0, "completed")
	os.Mkdir(filepath.Join(st.RunsDir(), store.TombPrefix+"x-1"), 0o700)
	before := treeHash(t, st.Root)
	rep, got := clean(t, st, Options{Policy: defaults, DryRun: true, Bytes: true})
	if got["old"].Action != Delete || got["old"].Bytes == nil || *got["old"].Bytes < 1300 {
		t.Errorf("old: %+v", got["old"])
	}
	if got["new"].Bytes == nil || *got["new"].Bytes == 0 {
		t.Errorf("--bytes gives every run a size: %+v", got["new"])
	}
	if rep.Deleted != 1 {
		t.Errorf("report: %+v", rep)
	}
	if after := treeHash(t, st.Root); after != before {
		t.Errorf("dry run changed the store:\n%s\nwant:\n%s", after, before)
	}
}

// A run whose locks are taken, or whose run.json moved on, after it was
// decided is not deleted.
func TestDeleteRechecksUnderLocks(t *testing.T) {
	st := newStore(t)
	makeRun(t, st, "r", 30, "completed")
	sum := SummarizeRun(st, "r")
	del, err := store.OpenDeleter(st)
	if err != nil {
		t.Fatal(err)
	}
	defer del.Close()

	for _, lock := range []string{store.AppendLock, store.LiveLock} {
		l, err := store.LockFile(st.RunPath("r", lock), lock == store.AppendLock, true)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := del.Delete("r", sum.UpdatedAt); !errors.Is(err, store.ErrBusy) {
			t.Errorf("%s held: err %v, want store.ErrBusy", lock, err)
		}
		l.Unlock()
	}
	if _, err := del.Delete("r", sum.UpdatedAt+1); !errors.Is(err, store.ErrBusy) {
		t.Errorf("updated_at moved: err %v, want store.ErrBusy", err)
	}
	if !st.RunExists("r") {
		t.Fatal("run deleted while busy")
	}
	n, err := del.Delete("r", sum.UpdatedAt)
	if err != nil || n == 0 || st.RunExists("r") {
		t.Fatalf("delete: %d %v", n, err)
	}
}

// Deciding reads run.json and the live lock only: with FIFOs in place of
// the logs (reading one would block forever) a dry run still finishes.
func TestDecidingNeverReadsLogs(t *testing.T) {
	st := newStore(t)
	makeRun(t, st, "old", 30, "completed")
	for _, p := range []string{
		st.RunPath("old", store.IterationsFile), st.RunPath("old", store.EventsFile),
		filepath.Join(st.IterationDir("old", 1), "agent.stdout"),
	} {
		os.Remove(p)
		if err := unix.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan map[string]Decision, 1)
	go func() {
		_, got := clean(t, st, Options{Policy: defaults, DryRun: true, Bytes: true})
		done <- got
	}()
	select {
	case got := <-done:
		if got["old"].Action != Delete {
			t.Errorf("old: %+v", got["old"])
		}
	case <-time.After(20 * time.Second):
		t.Fatal("dry run blocked: it opened a log")
	}
	if _, got := clean(t, st, Options{Policy: defaults}); got["old"].Action != Delete || st.RunExists("old") {
		t.Errorf("delete with FIFOs: %+v", got["old"])
	}
}

// Runs with no run.json or a broken one are kept and reported; so is a run
// stuck and unresolved, however old.
func TestCleanKeepsUnreadableAndStuck(t *testing.T) {
	st := newStore(t)
	os.MkdirAll(st.RunDir("empty"), 0o700)
	makeRun(t, st, "broken", 30, "completed")
	os.WriteFile(st.RunPath("broken", store.RunFile), []byte("{not json"), 0o600)
	makeRun(t, st, "stuck", 300, "stuck")
	_, got := clean(t, st, Options{Policy: Policy{KeepLast: 1, KeepDays: 1}})
	for id, reason := range map[string]string{"empty": ReasonUnreadable, "broken": ReasonUnreadable, "stuck": ReasonStuck} {
		if got[id].Action != Exempt || got[id].Reason != reason {
			t.Errorf("%s: %+v", id, got[id])
		}
		if _, err := os.Stat(st.RunDir(id)); err != nil {
			t.Errorf("%s deleted", id)
		}
	}
}

// No store at all: nothing printed, nothing created.
func TestCleanMissingStore(t *testing.T) {
	st := &store.Store{Root: filepath.Join(t.TempDir(), "nope")}
	rep, got := clean(t, st, Options{Policy: defaults})
	if len(got) != 0 || rep.Deleted != 0 {
		t.Errorf("%+v %+v", rep, got)
	}
	if _, err := os.Stat(st.Root); !errors.Is(err, os.ErrNotExist) {
		t.Error("clean created the store")
	}
}

// A clean that does not wait skips while another clean holds the store's
// lock, and deletes nothing.
func TestCleanSkipsWhileAnotherCleans(t *testing.T) {
	st := newStore(t)
	makeRun(t, st, "old", 30, "completed")
	l, err := store.LockFile(filepath.Join(st.Root, CleanLock), true, true)
	if err != nil {
		t.Fatal(err)
	}
	rep, got := clean(t, st, Options{Policy: defaults})
	if !rep.Skipped || len(got) != 0 || !st.RunExists("old") {
		t.Errorf("with the lock held: %+v %+v", rep, got)
	}
	l.Unlock()
	if rep, _ := clean(t, st, Options{Policy: defaults}); rep.Skipped || st.RunExists("old") {
		t.Errorf("after: %+v", rep)
	}
}

// The automatic clean of a run that ended waits (bounded) for another
// clean instead of skipping: two loops that end together must not leave
// the store above its limit because one's clean met the other's.
func TestAutoCleanWaitsForAnotherClean(t *testing.T) {
	st := newStore(t)
	for i := range 3 {
		makeRun(t, st, fmt.Sprintf("r%d", i), float64(3-i)/100, "completed")
	}
	l, err := store.LockFile(filepath.Join(st.Root, CleanLock), true, true)
	if err != nil {
		t.Fatal(err)
	}
	busy := make(chan struct{})
	var once sync.Once
	cleanBusy = func() { once.Do(func() { close(busy) }) }
	defer func() { cleanBusy = func() {} }()
	done := make(chan struct{})
	go func() {
		AutoClean(st, Policy{KeepLast: 2}, quietLog())
		close(done)
	}()
	select {
	case <-busy: // it found the lock held and waits: let it have it
		l.Unlock()
	case <-done:
		l.Unlock()
		t.Fatal("the automatic clean returned while another clean held the lock: skipped")
	}
	<-done
	if st.RunExists("r0") || !st.RunExists("r1") || !st.RunExists("r2") {
		t.Errorf("after the wait: r0 %v r1 %v r2 %v; want only the oldest deleted", st.RunExists("r0"), st.RunExists("r1"), st.RunExists("r2"))
	}
}
