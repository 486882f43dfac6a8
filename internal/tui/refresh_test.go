package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/testsupport/storetest"
	"github.com/loopkit/loopkit/internal/view"
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

// TestDescribeReadsEventsOnce: the Describe screen is drawn again on every
// Tick; it reads each line of events.jsonl once, however often it is
// drawn, and lists the newest view.MaxSignals signals. On a run of
// 500,000 events it read them all on every redraw: 4 s of CPU every
// 10 s, 280 MB of RSS.
func TestDescribeReadsEventsOnce(t *testing.T) {
	st, run := storetest.Run(t, func(r *record.Run) { r.Status = record.RunFailed })
	path := st.RunPath(run.RunID, store.EventsFile)
	const n = view.MaxSignals + 50
	for i := 1; i <= n; i++ {
		line := fmt.Sprintf(`{"ts":%d,"run_id":%q,"type":"WATCHDOG_SIGNAL","iteration":%d,"signal":"no_progress"}`, i, run.RunID, i)
		if err := store.AppendLine(path, []byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	lines := 0
	if err := store.ScanFile(path, func(int, []byte) error { lines++; return nil }); err != nil {
		t.Fatal(err)
	}
	m, err := New(st, run.RunID, false, Tools{})
	if err != nil {
		t.Fatal(err)
	}
	m.h = 1000
	m.key("d")
	var screen string
	for range 4 {
		m.refresh()
		screen = m.view()
	}
	if m.signals.Parsed != lines {
		t.Errorf("%d event lines read for %d lines and 4 redraws, want each once", m.signals.Parsed, lines)
	}
	if !strings.Contains(screen, fmt.Sprintf("iteration %d WATCHDOG_SIGNAL", n)) || strings.Contains(screen, "iteration 50 WATCHDOG_SIGNAL") {
		t.Errorf("Describe does not list the newest %d signals only:\n%s", view.MaxSignals, screen)
	}
	if !strings.Contains(screen, "50 earlier signals") {
		t.Errorf("Describe does not say 50 earlier signals are left out:\n%s", screen)
	}
}
