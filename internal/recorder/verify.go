package recorder

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// RecordVerification appends one final verification command (a validation
// record) to the run's verify.jsonl, under the append lock, with its
// streams in verify/NNN.stdout|stderr; then the event, report row and
// manifest.json's commands_executed. The same input twice is a no-op.
func (r *Recorder) RecordVerification(id string, in *record.Input) (*record.Verification, []byte, error) {
	if in.Validation == nil || in.Step != nil {
		return nil, nil, fmt.Errorf("a final verification is one validation record")
	}
	if err := r.St.FindRun(id); err != nil {
		return nil, nil, err
	}
	lock, rep, err := r.lockRepaired(id, false)
	if err != nil {
		return nil, nil, err
	}
	defer lock.Unlock()
	run, last := rep.run, rep.last
	path := r.St.RunPath(id, store.VerifyFile)
	if _, err := store.RepairTail(path); err != nil {
		return nil, nil, err
	}
	digest := Digest(in)
	vs, err := r.St.ReadVerifications(id)
	if err != nil {
		return nil, nil, err
	}
	for _, v := range vs {
		if v.InputDigest == digest {
			line, err := record.Marshal(v)
			return v, line, err
		}
	}
	val := in.Validation
	v := &record.Verification{
		RunID: id, Verification: len(vs) + 1, Command: val.Command, TimedOut: val.TimedOut, Error: val.Error,
		Stdout: val.Stdout, Stderr: val.Stderr, StdoutTruncated: val.StdoutTruncated, StderrTruncated: val.StderrTruncated,
		DurationMs: val.DurationMs, CannotRun: val.CannotRun, InputDigest: digest, CreatedAt: r.nowMs(),
	}
	v.ID = fmt.Sprintf("%s-verify-%d", id, v.Verification)
	v.Status, v.ExitCode = record.Outcome(*val.ExitCode, val.TimedOut, val.Signal, val.Error)
	if last != nil {
		v.Iteration = last.Iteration
		v.PlanAdvancedOnFailure = v.Status != record.StatusPass && r.ticked(id, last)
	}
	dir := r.St.RunPath(id, store.VerifyDir)
	if _, err := r.St.MkdirRun(id, store.VerifyDir); err != nil {
		return nil, nil, err
	}
	base := filepath.Join(dir, fmt.Sprintf("%03d", v.Verification))
	if err := r.place(val.StdoutFile, val.StdoutBytes, val.StrayWriter, val.Stdout, base+".stdout"); err != nil {
		return nil, nil, err
	}
	if err := r.place(val.StderrFile, val.StderrBytes, val.StrayWriter, val.Stderr, base+".stderr"); err != nil {
		return nil, nil, err
	}
	line, err := record.Marshal(v)
	if err != nil {
		return nil, nil, err
	}
	if err := store.AppendLine(path, line); err != nil { // the commit point
		return nil, nil, err
	}
	r.dropSpool(in)
	n, code := v.Iteration, v.ExitCode
	msg := fmt.Sprintf("%s: %s", v.Status, v.Command)
	if v.PlanAdvancedOnFailure {
		msg += " (plan advanced on failure)"
	}
	if err := r.AppendEvent(record.Event{TS: v.CreatedAt, RunID: id, Type: record.EventFinalVerify, Iteration: &n, ExitCode: &code, Message: msg}); err != nil {
		return v, line, err
	}
	err = r.verifyManifest(run, vs, v)
	r.copyOut(run)
	return v, line, err
}

// ticked reports whether the run's last iteration ticked plan boxes: more
// are done after it than after the iteration before (none before the first).
func (r *Recorder) ticked(id string, last *record.IterationLog) bool {
	if last.TasksDone == nil {
		return false
	}
	before := 0
	lines, err := store.TailLines(r.St.RunPath(id, store.IterationsFile), 2)
	if err == nil && len(lines) == 2 {
		var prev record.IterationLog
		if json.Unmarshal(lines[0], &prev) == nil && prev.TasksDone != nil {
			before = *prev.TasksDone
		}
	}
	return *last.TasksDone > before
}

// verifyManifest adds the final verification's commands for the verified
// iteration to manifest.json's commands_executed, each with its
// own exit code; the manifest's status is FAIL while any of them failed.
func (r *Recorder) verifyManifest(run *record.Run, before []*record.Verification, v *record.Verification) error {
	m := r.readManifest(run.RunID)
	m.RunID = run.RunID
	var cmds []manifestStep
	for _, c := range m.CommandsExecuted {
		if c.Name != finalVerifyStep {
			cmds = append(cmds, c)
		}
	}
	if m.Status == "" {
		m.Status = "PASS"
	}
	for _, o := range append(before, v) {
		if o.Iteration != v.Iteration {
			continue
		}
		code := o.ExitCode
		cmds = append(cmds, manifestStep{finalVerifyStep, o.Command, &code, o.DurationMs})
		if o.Status != record.StatusPass {
			m.Status = "FAIL"
		}
	}
	m.CommandsExecuted = cmds
	m.setLatest()
	return r.saveManifest(run.RunID, m)
}

// finalVerifyStep names the final verification's commands in the manifest.
const finalVerifyStep = "final_verify"
