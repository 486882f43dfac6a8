package store

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/procid"
	"github.com/loopkit/loopkit/internal/procrec"
)

// The driver lock is a file in the store, which the agent can remove or
// replace while the driver holds the old one: a run whose driver loopkit
// recorded taking it, still alive, is driven, lock file or not (a viewer
// following it must not end saying its driver is gone).
func TestInterruptedNotWhileRecordedDriverLives(t *testing.T) {
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
	os.Remove(st.RunPath("r1", DriverLock)) // the agent's rm
	if !st.Interrupted(run) {
		t.Fatal("a running run with no driver at all is not interrupted")
	}
	start, err := procid.Start(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if err := procrec.Add(os.Getpid(), start, procrec.Driver, st.RunDir("r1")); err != nil {
		t.Fatal(err)
	}
	if st.Interrupted(run) {
		t.Error("a run whose recorded driver is alive is called interrupted once its lock file was removed")
	}
}
