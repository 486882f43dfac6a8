package view

import (
	"os"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/testsupport/storetest"
)

// TestRunsCacheReadsOnlyWhatChanged: loading the runs list again reads no
// run.json that is unchanged (the full-screen view loads it every Tick: a
// store of 5,000 runs cost it 1.5 s of CPU each time), and still sees a
// rewritten run, a new one, a deleted one, and a driver that died.
func TestRunsCacheReadsOnlyWhatChanged(t *testing.T) {
	st := storetest.Driven(t, record.RunRunning) // run "r": a driver's, running
	gone := storetest.RecordDriver(t, st, "r", os.Getpid())
	for _, id := range []string{"a", "b"} {
		if err := st.CreateRun(store.NewRun(id, id, int64(len(id)))); err != nil {
			t.Fatal(err)
		}
	}
	var c RunsCache
	load := func(wantReads int) []RunInfo {
		t.Helper()
		runs, err := c.Load(st, func(id string, err error) { t.Errorf("run %s: %v", id, err) })
		if err != nil {
			t.Fatal(err)
		}
		if c.Reads != wantReads {
			t.Fatalf("%d run.json files read so far, want %d", c.Reads, wantReads)
		}
		return runs
	}
	status := func(runs []RunInfo, id string) string {
		for _, ri := range runs {
			if ri.Run.RunID == id {
				return ri.StatusMark()
			}
		}
		return "missing"
	}
	load(3)
	runs := load(3) // nothing changed: nothing read
	if len(runs) != 3 || status(runs, "r") != record.RunRunning {
		t.Fatalf("second load: %d runs, r %s", len(runs), status(runs, "r"))
	}

	gone() // the driver died: run.json unchanged, the run is interrupted now
	if s := status(load(3), "r"); s != Interrupted {
		t.Errorf("run r after its driver died: %s, want %s", s, Interrupted)
	}

	r, err := st.ReadRun("a")
	if err != nil {
		t.Fatal(err)
	}
	r.Status = record.RunFailed
	if err := st.WriteRun(r); err != nil {
		t.Fatal(err)
	}
	if s := status(load(4), "a"); s != record.RunFailed {
		t.Errorf("run a rewritten: %s, want failed", s)
	}

	if err := st.CreateRun(store.NewRun("c", "c", 9)); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(st.RunDir("b")); err != nil {
		t.Fatal(err)
	}
	runs = load(5)
	if len(runs) != 3 || status(runs, "c") == "missing" || status(runs, "b") != "missing" {
		t.Errorf("after c was added and b deleted: %d runs, c %s, b %s", len(runs), status(runs, "c"), status(runs, "b"))
	}
}
