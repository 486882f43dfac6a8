package view

import (
	"fmt"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/testsupport/storetest"
)

// TestNewestReadsOnlyCreatedAt: a command given no run (loop-view logs,
// describe, ...) picks the newest by created_at, reading of each run.json
// only that. Decoding each whole, as the runs list does, took 3 s for
// every such command on a store of 5,000 runs. Counted in allocations
// per run, which a whole decode (settings, totals, the progress block)
// multiplies.
func TestNewestReadsOnlyCreatedAt(t *testing.T) {
	st, _ := storetest.Run(t, func(r *record.Run) { r.CreatedAt = 5 })
	const n = 100
	for i := 1; i < n; i++ {
		r := store.NewRun(fmt.Sprintf("run-%03d", i), "a run", int64(i*10))
		r.Settings = runconfig.Defaults()
		r.Settings.Agent = []string{"claude", "-p"}
		r.Progress = strings.Repeat("## Iteration 1\n**Exit code:** 1\n", 50)
		if err := st.CreateRun(r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Newest(st)
	if err != nil || got != fmt.Sprintf("run-%03d", n-1) {
		t.Fatalf("Newest = %q, %v; want run-%03d", got, err, n-1)
	}
	allocs := testing.AllocsPerRun(3, func() { Newest(st) })
	if perRun := allocs / n; perRun > 100 {
		t.Errorf("Newest allocates %.0f times per run, want at most 100 (decoded whole: 350)", perRun)
	}

	// ties on created_at go to the greater id, as in the runs list
	r := store.NewRun("zz-tie", "tie", int64((n-1)*10))
	if err := st.CreateRun(r); err != nil {
		t.Fatal(err)
	}
	if got, _ := Newest(st); got != "zz-tie" {
		t.Errorf("Newest with a tie = %q, want zz-tie", got)
	}
}
