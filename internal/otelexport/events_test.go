package otelexport

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/testsupport/storetest"
)

// manyEvents is more events than a root span carries, by far: a run's
// events.jsonl reached 500,000 lines (77 MB) in the scale audit, and
// loop-export held them all (622 MB of RSS) to send the newest 4,096.
const manyEvents = 3*maxEvents + 7

func eventLine(id string, i int) []byte {
	return fmt.Appendf(nil, `{"ts":%d,"run_id":%q,"type":"WATCHDOG_SIGNAL","signal":"no_progress","iteration":1}`+"\n", i+1, id)
}

// rootSpan decodes the OTLP/JSON lines and returns the run's root span.
func rootSpan(t *testing.T, out []byte) ptrace.Span {
	t.Helper()
	for line := range bytes.Lines(out) {
		td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(line)
		if err != nil {
			t.Fatal(err)
		}
		spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
		for i := range spans.Len() {
			if spans.At(i).Name() == "loop.run" {
				return spans.At(i)
			}
		}
	}
	t.Fatal("no root span sent")
	return ptrace.Span{}
}

// checkNewest: the root span carries the newest maxEvents events, in
// order, and counts the others as dropped.
func checkNewest(t *testing.T, sp ptrace.Span) {
	t.Helper()
	if got := sp.Events().Len(); got != maxEvents {
		t.Fatalf("root span carries %d events, want %d", got, maxEvents)
	}
	if got, want := sp.DroppedEventsCount(), uint32(manyEvents-maxEvents); got != want {
		t.Errorf("dropped events = %d, want %d", got, want)
	}
	for i := range maxEvents {
		want := ts(int64(manyEvents - maxEvents + i + 1))
		if got := sp.Events().At(i).Timestamp(); got != want {
			t.Fatalf("event %d has time %d, want %d (the newest, in order)", i, got, want)
		}
	}
}

// TestStreamHoldsBoundedEvents: records read from stdin (--from -) keep
// at most twice the span's limit of a run's events while they are read,
// however many the run has, and still send the newest.
func TestStreamHoldsBoundedEvents(t *testing.T) {
	var out bytes.Buffer
	s, err := NewSession(&JSONExporter{W: &out}, defaultRedactor(), false, "test")
	if err != nil {
		t.Fatal(err)
	}
	st := s.NewStream()
	held := 0
	for i := range manyEvents {
		if err := st.Add(eventLine("r", i)); err != nil {
			t.Fatal(err)
		}
		held = max(held, len(st.runs["r"].Events))
	}
	if held > 2*maxEvents {
		t.Errorf("held %d events of one run at once, want at most %d", held, 2*maxEvents)
	}
	st.End()
	if err := s.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkNewest(t, rootSpan(t, out.Bytes()))
}

// TestStoreRunSendsNewestEvents: a run in the store with more events than
// a span carries sends the newest, counting the rest as dropped.
func TestStoreRunSendsNewestEvents(t *testing.T) {
	st, run := storetest.Run(t, func(r *record.Run) { r.Status = record.RunFailed })
	var lines []byte
	for i := range manyEvents {
		lines = append(lines, eventLine(run.RunID, i)...)
	}
	if err := os.WriteFile(st.RunPath(run.RunID, store.EventsFile), lines, 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	s, err := NewSession(&JSONExporter{W: &out}, defaultRedactor(), false, "test")
	if err != nil {
		t.Fatal(err)
	}
	err = s.StoreRun(context.Background(), st, run.RunID, RunMarks{}, true, func(RunMarks) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	checkNewest(t, rootSpan(t, out.Bytes()))
}
