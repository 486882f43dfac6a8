package recorder

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// Seed 003's step events: STEP_STARTED when an agent step of the run
// begins (loop-step, before the agent starts), STEP_FINISHED when it ends:
// when the next step of its iteration starts (a review, see
// StartStepAfter), else when its record is committed, with the file its
// output is kept in.

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
	return r.StartStepAfter(id, phase, ts, nil)
}

// StartStepAfter is StartStep for a step that follows prev, an ended step
// of the iteration not committed yet (the step a reviewer reads): prev's
// STEP_FINISHED comes first, in the same locked append, unless prev is no
// open step of the run. Its output_path is null: the driver may yet keep
// prev as an attempt (canceled during the review), not as the iteration.
// prev's commit then appends no second STEP_FINISHED (see finishStep).
func (r *Recorder) StartStepAfter(id, phase string, ts int64, prev *record.Step) (string, error) {
	if err := r.St.FindRun(id); err != nil {
		return "", err
	}
	lock, st, err := r.lockRepaired(id, false)
	if err != nil {
		return "", err
	}
	defer lock.Unlock()
	c, err := r.stepCounts(id, phase)
	if err != nil {
		return "", err
	}
	stepID := record.StepID(id, c.last+1)
	if ts == 0 {
		ts = r.nowMs()
	}
	if prev != nil && c.started[prev.StepID] && !c.finished[prev.StepID] {
		d := prev.DurationMs
		fin := record.Event{TS: ts, RunID: id, Type: record.EventStepFinished, StepID: prev.StepID, ExitCode: prev.ExitCode, DurationMs: &d}
		if err := r.AppendEvent(fin); err != nil {
			return "", err
		}
	}
	attempt := c.attempt
	if err := r.AppendEvent(record.Event{TS: ts, RunID: id, Type: record.EventStepStarted, StepID: stepID, Phase: phase, Attempt: &attempt}); err != nil {
		return "", err
	}
	r.copyOut(st.run)
	return stepID, nil
}

// stepCount is what events.jsonl says of the run's steps: the number of
// its last step (0: none), 1 + the steps of a phase started since the last
// ITERATION_RECORDED, and the steps started and finished since then.
type stepCount struct {
	last, attempt     int
	started, finished map[string]bool
}

// stepCounts reads events.jsonl backwards, to the last ITERATION_RECORDED
// (further while no step has been seen).
func (r *Recorder) stepCounts(id, phase string) (stepCount, error) {
	c := stepCount{attempt: 1, started: map[string]bool{}, finished: map[string]bool{}}
	counting := true
	prefix := id + "-step-"
	_, err := store.ReadBackward(r.St.RunPath(id, store.EventsFile), func(_ int64, line []byte) (bool, error) {
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
		case record.EventStepFinished:
			if counting {
				c.finished[e.StepID] = true
			}
		case record.EventStepStarted:
			if counting {
				c.started[e.StepID] = true
				if e.Phase == phase {
					c.attempt++
				}
			}
			if n, err := strconv.Atoi(strings.TrimPrefix(e.StepID, prefix)); err == nil && n > c.last && strings.HasPrefix(e.StepID, prefix) {
				c.last = n
			}
		}
		return c.last == 0 || counting, nil
	})
	return c, err
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

// finishStep appends the STEP_FINISHED of an agent step committed with its
// output in dir (an iteration or attempt folder), unless finished has it:
// the steps events.jsonl has finished (nil: read those since the last
// ITERATION_RECORDED, where a step that ended as its review began is).
// A step loop-step gave no id (recorded without a run, or by hand) has
// no events.
func (r *Recorder) finishStep(id string, ag *record.Agent, dir string, ts int64, finished map[string]bool) error {
	ev, err := r.stepFinished(id, ag, dir, ts, finished)
	if ev == nil || err != nil {
		return err
	}
	return r.AppendEvent(*ev)
}

// stepFinished is the STEP_FINISHED event finishStep appends, nil when
// none is owed.
func (r *Recorder) stepFinished(id string, ag *record.Agent, dir string, ts int64, finished map[string]bool) (*record.Event, error) {
	if ag == nil || ag.StepID == "" {
		return nil, nil
	}
	if finished == nil {
		c, err := r.stepCounts(id, "")
		if err != nil {
			return nil, err
		}
		finished = c.finished
	}
	if finished[ag.StepID] {
		return nil, nil
	}
	ev := record.Event{TS: ts, RunID: id, Type: record.EventStepFinished, StepID: ag.StepID, ExitCode: ag.ExitCode}
	d := ag.DurationMs
	ev.DurationMs = &d
	out := filepath.Join(dir, AgentStdout)
	if fi, err := os.Lstat(out); err == nil && fi.Mode().IsRegular() {
		if rel, err := filepath.Rel(r.St.RunDir(id), out); err == nil {
			ev.OutputPath = &rel
		}
	}
	return &ev, nil
}

// FinishOpenSteps appends a STEP_FINISHED for each step started since the
// run's last recorded iteration that never finished: its loop-step died
// with nothing kept (a driver killed before the agent printed anything),
// so exit code, duration and output are null. The caller holds the run's
// driver lock and has kept what the dead steps left (so no step of the
// run is still running); it returns how many it finished.
func (r *Recorder) FinishOpenSteps(id string, ts int64) (int, error) {
	if err := r.St.FindRun(id); err != nil {
		return 0, err
	}
	lock, _, err := r.lockRepaired(id, false)
	if err != nil {
		return 0, err
	}
	defer lock.Unlock()
	c, err := r.stepCounts(id, "")
	if err != nil {
		return 0, err
	}
	var open []string
	for s := range c.started {
		if !c.finished[s] {
			open = append(open, s)
		}
	}
	// in the order they started: the step number
	slices.SortFunc(open, func(a, b string) int { return stepNumber(a) - stepNumber(b) })
	if ts == 0 {
		ts = r.nowMs()
	}
	for _, s := range open {
		if err := r.AppendEvent(record.Event{TS: ts, RunID: id, Type: record.EventStepFinished, StepID: s}); err != nil {
			return 0, err
		}
	}
	return len(open), nil
}

// stepNumber is n of a step id <run_id>-step-<n> (0 when it is none).
func stepNumber(stepID string) int {
	i := strings.LastIndex(stepID, "-step-")
	if i < 0 {
		return 0
	}
	n, _ := strconv.Atoi(stepID[i+len("-step-"):])
	return n
}
