package loopdrive

import (
	"fmt"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/testsupport/storetest"
)

// TestInterruptedRunsReadsHeadsOnly: loop resume --interrupted looks for
// running runs whose driver is gone, in every store remembered; of a run
// not running it reads only run.json's head. Decoding each whole (as the
// runs list does) took 3 s on a store of 5,000 runs. Counted in
// allocations per run; the interrupted runs are still found, oldest first.
func TestInterruptedRunsReadsHeadsOnly(t *testing.T) {
	st := storetest.Driven(t, record.RunRunning) // "r", interrupted: no driver holds it
	const n = 100
	for i := 1; i < n; i++ {
		r := store.NewRun(fmt.Sprintf("run-%03d", i), "a run", int64(i))
		r.Status = record.RunCompleted
		r.Settings = runconfig.Defaults()
		r.Settings.Agent = []string{"claude", "-p"}
		if i == 7 || i == 3 {
			r.Status = record.RunRunning // interrupted too
		}
		if i == 5 { // its driver killed while it waited for a slot: it
			// stayed queued, and no resume at login took it up
			r.Status = record.RunQueued
		}
		if err := st.CreateRun(r); err != nil {
			t.Fatal(err)
		}
	}
	jobs, err := interruptedRuns(st.Root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, j := range jobs {
		got = append(got, j.run)
	}
	if fmt.Sprint(got) != "[run-003 run-005 run-007 r]" {
		t.Errorf("interrupted runs %v, want [run-003 run-005 run-007 r] (oldest first)", got)
	}
	allocs := testing.AllocsPerRun(3, func() { interruptedRuns(st.Root) })
	if perRun := allocs / n; perRun > 100 {
		t.Errorf("interruptedRuns allocates %.0f times per run, want at most 100 (run.json decoded whole?)", perRun)
	}
}
