package recorder

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// Step ids count the run's steps from 1; attempt counts the steps of one
// phase since the last recorded iteration. A writer killed after an
// iteration's commit leaves its STEP_FINISHED to the next writer, which
// appends it once, before the ITERATION_RECORDED it also owes.
func TestStepEvents(t *testing.T) {
	r := newRecorder(t)
	if _, err := r.Record("x", validation(t, 1, "out"), 0); err != nil {
		t.Fatal(err)
	}
	runJSON, _ := os.Stat(r.St.RunPath("x", store.RunFile))
	for i, want := range []struct{ id, phase string }{{"x-step-1", "implementation"}, {"x-step-2", "implementation"}, {"x-step-3", "review"}} {
		id, err := r.StartStep("x", want.phase, 0)
		if err != nil || id != want.id {
			t.Fatalf("step %d: %q, %v; want %s", i+1, id, err, want.id)
		}
	}
	// nothing of run.json changes: it is not written again (a file
	// created and one freed per step)
	if fi, err := os.Stat(r.St.RunPath("x", store.RunFile)); err != nil || !os.SameFile(fi, runJSON) {
		t.Errorf("StartStep rewrote run.json")
	}
	data, _ := os.ReadFile(r.St.RunPath("x", store.EventsFile))
	if !bytes.Contains(data, []byte(`"step_id":"x-step-2","phase":"implementation","attempt":2`)) ||
		!bytes.Contains(data, []byte(`"step_id":"x-step-3","phase":"review","attempt":1`)) {
		t.Fatalf("STEP_STARTED events:\n%s", data)
	}

	// iteration 2 of step x-step-2, then a crash right after its commit
	in := validation(t, 0, "ok")
	code := 0
	in.Step = &record.Step{Type: record.TypeStep, Command: "agent", Phase: "implementation", ExitCode: &code, DurationMs: 42, StepID: "x-step-2"}
	if _, err := r.Record("x", in, 0); err != nil {
		t.Fatal(err)
	}
	ev := r.St.RunPath("x", store.EventsFile)
	data, _ = os.ReadFile(ev)
	if !strings.Contains(string(data), `"type":"STEP_FINISHED","exit_code":0,"step_id":"x-step-2","duration_ms":42,"output_path":"iterations/002/agent.stdout"}`) {
		t.Fatalf("STEP_FINISHED:\n%s", data)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	os.WriteFile(ev, bytes.Join(lines[:len(lines)-3], nil), 0o600) // drop STEP_FINISHED, ITERATION_RECORDED
	run, _ := r.St.ReadRun("x")
	run.Iteration, run.Passed = 1, 0
	r.St.WriteRun(run)
	if err := r.Repair("x"); err != nil {
		t.Fatal(err)
	}
	if err := r.Repair("x"); err != nil {
		t.Fatal(err)
	}
	if n := count(t, ev, `"STEP_FINISHED"`); n != 1 {
		t.Errorf("%d STEP_FINISHED after the repairs, want 1", n)
	}
	data, _ = os.ReadFile(ev)
	if i, j := bytes.Index(data, []byte(`"STEP_FINISHED"`)), bytes.LastIndex(data, []byte(`"ITERATION_RECORDED"`)); i < 0 || i > j {
		t.Errorf("STEP_FINISHED not before its ITERATION_RECORDED:\n%s", data)
	}
	if id := r.LastStepID("x", "implementation"); id != "x-step-2" {
		t.Errorf("LastStepID = %q", id)
	}
}

// Every key of a type's payload is written, null when unknown.
func TestEventPayloadKeys(t *testing.T) {
	line, err := record.Marshal(record.Event{TS: 1, RunID: "x", Type: record.EventRunFailed})
	if err != nil || string(line) != `{"ts":1,"run_id":"x","type":"RUN_FAILED","reason":null}` {
		t.Errorf("RUN_FAILED: %s %v", line, err)
	}
	line, _ = record.Marshal(record.Event{TS: 1, RunID: "x", Type: record.EventRunCreated, Name: "a<b"})
	if string(line) != `{"ts":1,"run_id":"x","type":"RUN_CREATED","name":"a<b","name_source":null,"spec_path":null,"plan_path":null}` {
		t.Errorf("RUN_CREATED: %s", line)
	}
}

// A step a reviewer reads ends as the review starts: its STEP_FINISHED
// (where its output goes is not known yet) comes before the review's
// STEP_STARTED, and neither the commit of the iteration nor a repair after
// a crash finishes it again.
func TestStepFinishedAsReviewStarts(t *testing.T) {
	r := newRecorder(t)
	if _, err := r.Record("x", decode(t, stepLine, valLine), 0); err != nil {
		t.Fatal(err)
	}
	impl, err := r.StartStep("x", "implementation", 0)
	if err != nil {
		t.Fatal(err)
	}
	code := 3
	prev := &record.Step{Type: record.TypeStep, Command: "agent", ExitCode: &code, DurationMs: 42, StepID: impl}
	rev, err := r.StartStepAfter("x", "review", 0, prev)
	if err != nil {
		t.Fatal(err)
	}
	ev := r.St.RunPath("x", store.EventsFile)
	if !strings.Contains(readFile(t, ev), `"type":"STEP_FINISHED","exit_code":3,"step_id":"x-step-1","duration_ms":42,"output_path":null}`) {
		t.Fatalf("no STEP_FINISHED for the reviewed step:\n%s", readFile(t, ev))
	}
	withID := func(line, id string) string {
		return strings.Replace(line, `{"type":"step",`, `{"type":"step","step_id":"`+id+`",`, 1)
	}
	if _, err := r.Record("x", decode(t, withID(stepLine, impl), withID(reviewLine, rev), valLine), 0); err != nil {
		t.Fatal(err)
	}
	want := "ITERATION_RECORDED STEP_STARTED:x-step-1 STEP_FINISHED:x-step-1 STEP_STARTED:x-step-2 STEP_FINISHED:x-step-2 ITERATION_RECORDED"
	if got := stepEventOrder(t, ev); got != want {
		t.Fatalf("events:\n%s\nwant\n%s", got, want)
	}
	// a writer killed after the commit: the review's end and the
	// iteration's event are owed, the reviewed step's end is not
	data := []byte(readFile(t, ev))
	lines := bytes.SplitAfter(data, []byte("\n"))
	os.WriteFile(ev, bytes.Join(lines[:len(lines)-3], nil), 0o600)
	run, _ := r.St.ReadRun("x")
	run.Iteration, run.Attempts = 1, 0
	r.St.WriteRun(run)
	if err := r.Repair("x"); err != nil {
		t.Fatal(err)
	}
	if got := stepEventOrder(t, ev); got != want {
		t.Fatalf("events after the repair:\n%s\nwant\n%s", got, want)
	}
}

// stepEventOrder lists the step and iteration events of the log, in order.
func stepEventOrder(t *testing.T, path string) string {
	t.Helper()
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(readFile(t, path)), "\n") {
		var e record.Event
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		switch e.Type {
		case record.EventStepStarted, record.EventStepFinished:
			got = append(got, e.Type+":"+e.StepID)
		case record.EventIterationRecorded:
			got = append(got, e.Type)
		}
	}
	return strings.Join(got, " ")
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
