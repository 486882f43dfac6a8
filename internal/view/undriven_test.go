package view

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/procid"
	"github.com/loopkit/loopkit/internal/procrec"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// A run marked paused whose driver is still alive (it ends its current
// step first; or the agent wrote paused into run.json) is still driven: a
// follower goes on, rather than end saying no driver drives it and miss
// the rest of the step. Once no recorded driver lives, it is undriven.
func TestPausedRunUndrivenOnlyOnceItsDriverIsGone(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	st, err := store.Open(filepath.Join(t.TempDir(), ".loop"))
	if err != nil {
		t.Fatal(err)
	}
	run := store.NewRun("r1", "r", time.Now().UnixMilli())
	run.Settings.Agent = []string{"agent"}
	run.Status = record.RunPaused
	if err := st.CreateRun(run); err != nil {
		t.Fatal(err)
	}
	start, err := procid.Start(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if err := procrec.Add(os.Getpid(), start, procrec.Driver, st.RunDir("r1")); err != nil {
		t.Fatal(err)
	}
	ri, err := LoadRun(st, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if u := ri.Undriven(); u != nil {
		t.Fatalf("paused run with its driver alive: %v", u)
	}
	procrec.Remove(os.Getpid(), start) // the driver ends its step and exits
	if ri, err = LoadRun(st, "r1"); err != nil {
		t.Fatal(err)
	}
	if u := ri.Undriven(); u == nil || u.Why != record.RunPaused {
		t.Fatalf("paused run with no driver: undriven %v, want paused", u)
	}
}
