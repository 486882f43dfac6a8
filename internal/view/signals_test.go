package view

import (
	"fmt"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/testsupport/storetest"
)

func appendSignals(t *testing.T, st *store.Store, id string, from, to int) {
	t.Helper()
	for i := from; i <= to; i++ {
		for _, line := range []string{
			fmt.Sprintf(`{"ts":%d,"run_id":%q,"type":"ITERATION_RECORDED","iteration":%d,"exit_code":1}`, i, id, i),
			fmt.Sprintf(`{"ts":%d,"run_id":%q,"type":"WATCHDOG_SIGNAL","iteration":%d,"signal":"no_progress"}`, i, id, i),
		} {
			if err := store.AppendLine(st.RunPath(id, store.EventsFile), []byte(line)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestSignalLogReadsEachEventOnce: read again, a SignalLog reads only the
// events appended since, and holds the newest Keep signals however many
// the run has. The full-screen view's Describe read a run's whole
// events.jsonl on every redraw: with 500,000 events, 4 s of CPU every
// 10 s and 280 MB of RSS.
func TestSignalLogReadsEachEventOnce(t *testing.T) {
	st, run := storetest.Run(t, func(*record.Run) {})
	base := 0
	if err := store.ScanFile(st.RunPath(run.RunID, store.EventsFile), func(int, []byte) error { base++; return nil }); err != nil {
		t.Fatal(err)
	}
	appendSignals(t, st, run.RunID, 1, 30)
	l := SignalLog{Keep: 10}
	for range 3 {
		if err := l.Read(st, run.RunID); err != nil {
			t.Fatal(err)
		}
	}
	if l.Parsed != base+60 || l.Total != 30 || len(l.Last) != 10 || l.Last[0].Iteration != 21 || l.Last[9].Iteration != 30 {
		t.Fatalf("after 3 reads of %d lines: parsed %d, %d signals, kept %d (%v)", base+60, l.Parsed, l.Total, len(l.Last), l.Last)
	}
	appendSignals(t, st, run.RunID, 31, 35)
	if err := l.Read(st, run.RunID); err != nil {
		t.Fatal(err)
	}
	if l.Parsed != base+70 || l.Total != 35 || len(l.Last) != 10 || l.Last[0].Iteration != 26 || l.Last[9].Iteration != 35 {
		t.Errorf("after 5 more: parsed %d, %d signals, kept %d, first %d", l.Parsed, l.Total, len(l.Last), l.Last[0].Iteration)
	}
	all, err := Signals(st, run.RunID)
	if err != nil || len(all) != 35 || all[0].Fields != `{"signal":"no_progress"}` {
		t.Errorf("Signals = %d signals (%v), %v; want all 35", len(all), all[:1], err)
	}
}
