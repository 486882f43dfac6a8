package view

import (
	"os"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/testsupport/storetest"
)

// A run marked paused whose driver is still alive (it ends its current
// step first; or the agent wrote paused into run.json) is still driven: a
// follower goes on, rather than end saying no driver drives it and miss
// the rest of the step. Once no recorded driver lives, it is undriven.
func TestPausedRunUndrivenOnlyOnceItsDriverIsGone(t *testing.T) {
	st := storetest.Driven(t, record.RunPaused)
	gone := storetest.RecordDriver(t, st, "r", os.Getpid())
	ri, err := LoadRun(st, "r")
	if err != nil {
		t.Fatal(err)
	}
	if u := ri.Undriven(); u != nil {
		t.Fatalf("paused run with its driver alive: %v", u)
	}
	gone() // the driver ends its step and exits
	if ri, err = LoadRun(st, "r"); err != nil {
		t.Fatal(err)
	}
	if u := ri.Undriven(); u == nil || u.Why != record.RunPaused {
		t.Fatalf("paused run with no driver: undriven %v, want paused", u)
	}
}
