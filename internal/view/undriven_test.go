package view

import (
	"os"
	"strings"
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

// A run.json something else damaged is written whole again by the run's
// driver at its next change: followed while a driver holds the run, and
// ended with the damage named once none does. Before, tail and logs
// --follow --until-done waited for ever on it, and events --follow ended
// at once though its driver went on.
func TestWatchDamagedRunJSON(t *testing.T) {
	st := storetest.Driven(t, record.RunRunning)
	gone := storetest.RecordDriver(t, st, "r", os.Getpid())
	if err := os.WriteFile(st.RunPath("r", "run.json"), []byte("{garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if ri, done, err := Watch(st, "r", false); ri != nil || done || err != nil {
		t.Fatalf("damaged, its driver alive: %v %v %v; want followed on", ri, done, err)
	}
	gone()
	if _, done, err := Watch(st, "r", true); !done || err == nil || !strings.Contains(err.Error(), "is damaged") {
		t.Fatalf("damaged, no driver: done %v, err %v; want the damage named", done, err)
	}
}

func TestWatchNotThereYet(t *testing.T) {
	st := storetest.Driven(t, record.RunRunning)
	if ri, done, err := Watch(st, "not-yet", false); ri != nil || done || err != nil {
		t.Fatalf("a run not there yet: %v %v %v; want waited for", ri, done, err)
	}
}
