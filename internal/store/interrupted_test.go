package store

import (
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/procid"
	"github.com/loopkit/loopkit/internal/procrec"
	"github.com/loopkit/loopkit/internal/record"
)

// The driver lock is a file in the store, which the agent can remove or
// replace while the driver holds the old one: a run whose driver loopkit
// recorded taking it, still alive, is driven, lock file or not (a viewer
// following it must not end saying its driver is gone).
func TestInterruptedNotWhileRecordedDriverLives(t *testing.T) {
	st, run := drivenRun(t)
	os.Remove(st.RunPath("r1", DriverLock)) // the agent's rm
	if !st.Interrupted(run) {
		t.Fatal("a running run with no driver at all is not interrupted")
	}
	recordThisDriver(t, st)
	if st.Interrupted(run) {
		t.Error("a run whose recorded driver is alive is called interrupted once its lock file was removed")
	}
}

// A driver.lock that cannot be opened (the agent put a socket there, or
// took its read permission) says nothing about the driver: the recorded
// driver decides. Before this, such a lock counted as held for good, so
// `loop-view tail --follow` and the TUI waited on a run whose driver was
// long gone, and `loop resume --interrupted` never found it.
func TestUnprobeableLockLeavesTheRecordedDriverToDecide(t *testing.T) {
	st, run := drivenRun(t)
	lock := st.RunPath("r1", DriverLock)
	os.Remove(lock)
	ln, err := net.Listen("unix", lock) // opening a socket fails: ENXIO
	if err != nil {
		t.Skipf("no unix socket here: %v", err)
	}
	defer ln.Close()
	if _, err := ProbeLock(lock); err == nil {
		t.Fatal("the lock opened: the test does not reach its case")
	}
	if st.Held("r1") || !st.Interrupted(run) {
		t.Error("a run with an unopenable lock and no recorded driver is held")
	}
	recordThisDriver(t, st)
	if !st.Held("r1") {
		t.Error("a run whose recorded driver is alive is not held")
	}
}

// drivenRun is a store with run r1, running, started by a driver.
func drivenRun(t *testing.T) (*Store, *record.Run) {
	t.Helper()
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	st, err := Open(filepath.Join(t.TempDir(), ".loop"))
	if err != nil {
		t.Fatal(err)
	}
	run := NewRun("r1", "r", time.Now().UnixMilli())
	run.Settings.Agent = []string{"agent"}
	if err := st.CreateRun(run); err != nil {
		t.Fatal(err)
	}
	return st, run
}

// recordThisDriver records this process as r1's driver (procrec).
func recordThisDriver(t *testing.T, st *Store) {
	t.Helper()
	start, err := procid.Start(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if err := procrec.Add(os.Getpid(), start, procrec.Driver, st.RunDir("r1")); err != nil {
		t.Fatal(err)
	}
}
