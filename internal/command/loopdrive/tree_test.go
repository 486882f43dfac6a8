package loopdrive

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
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

// testRun is a holder of store root with a driver of its own: a real
// process, which ends with the run (end), as a driver does.
type testRun struct {
	*holder
	driver *exec.Cmd
}

func testHolder(t *testing.T, root string) *testRun {
	t.Helper()
	st, err := store.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	driver := exec.Command("sleep", "300")
	if err := driver.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { driver.Process.Kill(); driver.Wait() })
	var out bytes.Buffer
	return &testRun{&holder{env: cli.NewEnv("loop-drive", nil, strings.NewReader(""), &out, &out), st: st,
		parent: driver.Process.Pid}, driver}
}

// end ends the run: its driver, then its holder's locks.
func (r *testRun) end() {
	r.driver.Process.Kill()
	r.driver.Wait()
	for _, l := range r.locks {
		l.Unlock()
	}
	r.locks = nil
}

// Two stores, one work tree (another --store or LOOP_STORE): the second
// run is refused as in one store, naming the first (it ran beside it and
// recorded the first agent's edits as its own).
func TestTreeLockAcrossStores(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	dir := t.TempDir()
	first := testHolder(t, filepath.Join(dir, ".loop"))
	if err := first.lockTree(dir, "20260101-000000-000-first-0001"); err != nil {
		t.Fatal(err)
	}
	defer first.end()
	second := testHolder(t, filepath.Join(t.TempDir(), "other-store"))
	err := second.lockTree(filepath.Join(dir, "."), "20260101-000000-000-second-0002")
	var ee *cli.ExitError
	if !errors.As(err, &ee) || ee.Code != 75 || !strings.Contains(err.Error(), "first-0001 is already running in "+dir) {
		t.Fatalf("second store's lockTree = %v, want exit 75 naming the first run", err)
	}
	first.end()
	if err := second.lockTree(dir, "20260101-000000-000-second-0002"); err != nil {
		t.Fatalf("once the first ended: %v", err)
	}
	second.end()
}

// Outside git a run's tree holds every folder under it: a run in a folder
// above or below one that runs is refused, whichever came first; a git
// repository in such a folder is a tree of its own and runs.
func TestTreeLockNestedOutsideGit(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	top := t.TempDir()
	sub, repo := filepath.Join(top, "sub"), filepath.Join(top, "repo")
	for _, d := range []string{sub, filepath.Join(repo, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, order := range [][2]string{{top, sub}, {sub, top}} {
		a := testHolder(t, filepath.Join(t.TempDir(), "a"))
		if err := a.lockTree(order[0], "20260101-000000-000-a-0001"); err != nil {
			t.Fatal(err)
		}
		b := testHolder(t, filepath.Join(t.TempDir(), "b"))
		err := b.lockTree(order[1], "20260101-000000-000-b-0002")
		if err == nil || !strings.Contains(err.Error(), "a-0001 is already running in "+order[0]+":") {
			t.Errorf("%s while %s runs: %v, want a refusal naming the run in %s", order[1], order[0], err, order[0])
		}
		b.end()
		if order[0] == top {
			r := testHolder(t, filepath.Join(repo, ".loop"))
			if err := r.lockTree(repo, "20260101-000000-000-r-0003"); err != nil {
				t.Errorf("a repository inside %s: %v", top, err)
			}
			r.end()
		}
		a.end()
	}
}
