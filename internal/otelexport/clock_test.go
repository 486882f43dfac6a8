package otelexport

import (
	"bytes"
	"context"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/loopkit/loopkit/internal/record"
)

// TestClockSetBackMidStep: started_at and ended_at are wall times, the
// durations monotonic; a clock set back during a step records an ended_at
// before its started_at. No span may end before it starts (backends
// drop or misdraw them): such a span lasts its recorded duration.
func TestClockSetBackMidStep(t *testing.T) {
	var out bytes.Buffer
	s, err := NewSession(&JSONExporter{W: &out}, defaultRedactor(), false, "test")
	if err != nil {
		t.Fatal(err)
	}
	const t0 = 1_800_000_000_000
	r := Run{ID: "r", CreatedAt: t0}
	exit := 0
	it := record.IterationLog{
		Iteration: 1, CreatedAt: t0 - 3_598_000, DurationMs: 900, Status: record.StatusPass,
		ValidationStartedAt: t0 - 3_599_000, ValidationEndedAt: t0 - 3_598_100,
		// the agent started at t0+1000; an hour was taken off the clock
		Agent:     &record.Agent{StartedAt: t0 + 1_000, EndedAt: t0 - 3_599_050, DurationMs: 5_000, ExitCode: &exit},
		ToolCalls: []record.ToolCall{{ToolName: "Edit"}, {ToolName: "Bash"}},
	}
	at := record.Attempt{Attempt: 1, CreatedAt: t0 - 3_590_000, Agent: &record.Agent{StartedAt: t0 + 2_000, EndedAt: t0 - 3_590_000, DurationMs: 7_000}}
	s.Mapper.RunSpan(r, t0-3_500_000)
	s.Mapper.IterationSpans(r, &it)
	s.Mapper.AttemptSpan(r, &at)
	if err := s.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	n := 0
	for line := range bytes.Lines(out.Bytes()) {
		td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(line)
		if err != nil {
			t.Fatal(err)
		}
		spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
		for i := range spans.Len() {
			sp := spans.At(i)
			n++
			if sp.EndTimestamp() < sp.StartTimestamp() {
				t.Errorf("%s ends %d ms before it starts", sp.Name(), (sp.StartTimestamp()-sp.EndTimestamp())/1e6)
			}
			if sp.Name() == "invoke_agent" || sp.Name() == "loop.validation" {
				if d := int64(sp.EndTimestamp()-sp.StartTimestamp()) / 1e6; d != 5_000 && d != 7_000 && d != 900 {
					t.Errorf("%s lasts %d ms, not its recorded duration", sp.Name(), d)
				}
			}
		}
	}
	if n < 6 {
		t.Fatalf("%d spans sent", n)
	}
}
