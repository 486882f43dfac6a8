package recorder

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// Seed 003's step events: STEP_STARTED when an agent step of the run
// begins (loop-step, before the agent starts), STEP_FINISHED when its
// record is committed, with the file its output is kept in.

// StartStep appends STEP_STARTED for a new agent step of the run and
// returns its id, <run_id>-step-<n>: n counts the run's steps from 1, and
// attempt counts the steps of the same phase since the last recorded
// iteration. Both are read from events.jsonl, under the append lock, so a
// step id is never given twice, even after a crash.
//
// run.json is not rewritten: nothing in it changes (each rewrite creates
// and frees a file, which on a busy file system costs milliseconds of
// every iteration); the copies outside the store get the event.
func (r *Recorder) StartStep(id, phase string, ts int64) (string, error) {
	if !r.St.RunExists(id) {
		return "", fmt.Errorf("no such run: %s", id)
	}
	lock, st, err := r.lockRepaired(id, false)
	if err != nil {
		return "", err
	}
	defer lock.Unlock()
	last, attempt, err := r.stepCounts(id, phase)
	if err != nil {
		return "", err
	}
	stepID := record.StepID(id, last+1)
	if ts == 0 {
		ts = r.nowMs()
	}
	if err := r.AppendEvent(record.Event{TS: ts, RunID: id, Type: record.EventStepStarted, StepID: stepID, Phase: phase, Attempt: &attempt}); err != nil {
		return "", err
	}
	r.copyOut(st.run)
	return stepID, nil
}

// stepCounts reads events.jsonl backwards: the number of the run's last
// step (0: none), and 1 + the steps of phase started since the last
// ITERATION_RECORDED.
func (r *Recorder) stepCounts(id, phase string) (last, attempt int, err error) {
	attempt = 1
	counting := true
	prefix := id + "-step-"
	_, err = store.ReadBackward(r.St.RunPath(id, store.EventsFile), func(_ int64, line []byte) (bool, error) {
		var e struct {
			Type   string `json:"type"`
			StepID string `json:"step_id"`
			Phase  string `json:"phase"`
		}
		if json.Unmarshal(line, &e) != nil {
			return true, nil // not ours to judge here; the log's readers report it
		}
		switch e.Type {
		case record.EventIterationRecorded:
			counting = false
		case record.EventStepStarted:
			if counting && e.Phase == phase {
				attempt++
			}
			if n, err := strconv.Atoi(strings.TrimPrefix(e.StepID, prefix)); err == nil && n > last && strings.HasPrefix(e.StepID, prefix) {
				last = n
			}
		}
		return last == 0 || counting, nil
	})
	return last, attempt, err
}

// LastStepID is the id of the run's latest step of phase ("" for any
// phase); "" when it has none.
func (r *Recorder) LastStepID(id, phase string) string {
	found := ""
	store.ReadBackward(r.St.RunPath(id, store.EventsFile), func(_ int64, line []byte) (bool, error) {
		var e record.Event
		if json.Unmarshal(line, &e) == nil && e.Type == record.EventStepStarted && (phase == "" || e.Phase == phase) {
			found = e.StepID
			return false, nil
		}
		return true, nil
	})
	return found
}

// stepFinished is the STEP_FINISHED event of an agent step committed with
// its output in dir (an iteration or attempt folder); nil for a step
// loop-step gave no id (recorded without a run, or by hand).
func (r *Recorder) stepFinished(id string, ag *record.Agent, dir string, ts int64) *record.Event {
	if ag == nil || ag.StepID == "" {
		return nil
	}
	ev := &record.Event{TS: ts, RunID: id, Type: record.EventStepFinished, StepID: ag.StepID, ExitCode: ag.ExitCode}
	d := ag.DurationMs
	ev.DurationMs = &d
	out := filepath.Join(dir, AgentStdout)
	if fi, err := os.Lstat(out); err == nil && fi.Mode().IsRegular() {
		if rel, err := filepath.Rel(r.St.RunDir(id), out); err == nil {
			ev.OutputPath = &rel
		}
	}
	return ev
}
