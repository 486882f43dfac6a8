package loopdrive

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// A run started right after another in the same tree finds the lock still
// held by the ended run's holder, which has not yet seen its driver go: it
// waits for that lock instead of refusing (clean_twenty and
// loop_one_per_tree failed so under load).
func TestTreeLockOfAnEndedRunIsWaitedFor(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, ".loop"))
	if err != nil {
		t.Fatal(err)
	}
	path := TreeLockPath(st, dir)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	held, err := store.LockFile(path, true, false)
	if err != nil {
		t.Fatal(err)
	}
	// "ended" has no run.json, so no live driver: its holder is on its way out.
	if err := held.SetNote("ended\n"); err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	go func() {
		time.Sleep(300 * time.Millisecond)
		held.Unlock()
		close(released)
	}()
	var out bytes.Buffer
	h := &holder{env: cli.NewEnv("loop-drive", nil, strings.NewReader(""), &out, &out), st: st}
	if err := h.lockTree(dir, "next"); err != nil {
		t.Fatalf("lockTree refused a lock whose run has no live driver: %v", err)
	}
	<-released
	for _, l := range h.locks {
		l.Unlock()
	}
}

// A lock whose run has a live driver is refused at once, naming the run.
func TestTreeLockOfALiveRunIsRefused(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, ".loop"))
	if err != nil {
		t.Fatal(err)
	}
	path := TreeLockPath(st, dir)
	os.MkdirAll(filepath.Dir(path), 0o700)
	held, err := store.LockFile(path, true, false)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	id := "20260101-000000-000-live-0001"
	pid := os.Getpid()
	if err := st.CreateRun(&record.Run{RunID: id, Status: "running", PID: &pid}); err != nil {
		t.Fatal(err)
	}
	held.SetNote(id + "\n")
	var out bytes.Buffer
	h := &holder{env: cli.NewEnv("loop-drive", nil, strings.NewReader(""), &out, &out), st: st}
	err = h.lockTree(dir, "next")
	if err == nil || !strings.Contains(err.Error(), id) {
		t.Fatalf("lockTree = %v, want a refusal naming %s", err, id)
	}
}
