package tui

import (
	"fmt"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/testsupport/storetest"
)

// TestIdleRunsListReadsNothingAgain: the runs list refreshes every Tick;
// with nothing changed it reads no run.json again. On a store of 5,000
// runs, reading them all every 400 ms kept an idle view at 56% of a core
// (7 s of CPU in 12.7 s) and 193 MB of RSS.
func TestIdleRunsListReadsNothingAgain(t *testing.T) {
	st, _ := storetest.Run(t, func(*record.Run) {})
	const n = 20
	for i := 1; i < n; i++ {
		id := fmt.Sprintf("run-%02d", i)
		if err := st.CreateRun(store.NewRun(id, id, int64(i))); err != nil {
			t.Fatal(err)
		}
	}
	m, err := New(st, "", false, Tools{})
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		m.refresh()
	}
	if len(m.runs) != n {
		t.Fatalf("%d runs listed, want %d", len(m.runs), n)
	}
	if m.runsCache.Reads != n {
		t.Errorf("%d run.json files read for %d runs and 5 refreshes, want %d: each once", m.runsCache.Reads, n, n)
	}
	if err := st.CreateRun(store.NewRun("new", "new", time.Now().UnixMilli()+1000)); err != nil {
		t.Fatal(err)
	}
	m.refresh()
	if len(m.runs) != n+1 || m.runs[0].Run.RunID != "new" || m.runsCache.Reads != n+1 {
		t.Errorf("after a new run: %d runs, first %s, %d reads", len(m.runs), m.runs[0].Run.RunID, m.runsCache.Reads)
	}
}
