package recorder

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/loopkit/loopkit/internal/artifacts"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
)

// Update changes a run's run.json under the append lock, after repair.
// The run must exist (readers and status changes never create runs).
func (r *Recorder) Update(id string, change func(run *record.Run) error) (*record.Run, error) {
	if err := r.St.FindRun(id); err != nil {
		return nil, err
	}
	lock, st, err := r.lockRepaired(id, false)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	run := st.run
	// the change's event and report row stand only with its run.json
	logs := []string{r.St.RunPath(id, store.EventsFile), r.St.RunPath(id, store.ReportFile)}
	sizes := []int64{store.Size(logs[0]), store.Size(logs[1])}
	err = change(run)
	if err == nil {
		run.UpdatedAt = r.nowMs()
		err = r.St.WriteRun(run)
	}
	if err != nil && !store.Renamed(err) { // a run.json in place keeps its event
		for i, l := range logs {
			if cerr := store.CutBack(l, sizes[i]); cerr != nil && r.Log != nil {
				r.Log.Warn(fmt.Sprintf("run %s: a change not made stays in %s", id, filepath.Base(l)), "err", cerr)
			}
		}
		return nil, err
	}
	if err != nil && r.Log != nil {
		r.Log.Warn(fmt.Sprintf("run %s: run.json is written but a power loss may undo it", id), "err", err)
	}
	r.copyOut(run)
	return run, nil
}

// copyOut brings the run's copies outside the store (log_dir, the global
// mirror, the artifact directory) up to date with it. They are derived:
// a failure is a warning, and the next recording writes them again.
func (r *Recorder) copyOut(run *record.Run) { r.copies(run, artifacts.Write) }

// copies is copyOut by write: artifacts.Write, or artifacts.Rebuild for a
// repair (every file checked, not only what the copies have not got).
func (r *Recorder) copies(run *record.Run, write func(*store.Store, *record.Run) error) {
	s := &run.Settings
	if (s.LogDir != "" || s.ArtifactDir != "" || s.GlobalLogDir != "") && runconfig.Planted(r.St.RunDir(run.RunID), s) {
		if r.Log != nil { // its folders are the agent's choice, outside the store
			r.Log.Warn(fmt.Sprintf("run %s: no copies written: it names an agent, as a driver's run, but loopkit kept no settings for it (the agent can write .loop/runs)", run.RunID))
		}
		return
	}
	// a run no driver made (no agent) has no copy settings of its own
	if len(run.Settings.Agent) == 0 && len(r.CopyDefaults) > 0 {
		c := *run
		for k, v := range r.CopyDefaults {
			if err := c.Settings.Set(k, v); err != nil && r.Log != nil {
				r.Log.Warn(fmt.Sprintf("run %s: copy setting ignored: %v", run.RunID, err))
			}
		}
		artifacts.Resolve(&c.Settings, run.WorkspaceRoot)
		run = &c
	}
	if err := write(r.St, run); err != nil && r.Log != nil {
		r.Log.Warn(fmt.Sprintf("run %s: copy not up to date: %v", run.RunID, err))
	}
}

// SetStatus changes the run's status and appends the matching event and
// report row. message, when set, is kept as the run's last_error for failed,
// stuck and canceled runs.
func (r *Recorder) SetStatus(id, status, message string) (*record.Run, error) {
	return r.SetStatusRule(id, status, message, "")
}

// ErrUnchanged is returned, with the run as it is, by SetStatusRule for a
// run that already has that terminal status: nothing is written, so no
// event, report row or hook repeats an end the run already had.
var ErrUnchanged = errors.New("status unchanged")

// SetStatusRule is SetStatus naming, in the status event, the driver's
// rule that decided it.
func (r *Recorder) SetStatusRule(id, status, message, rule string) (*record.Run, error) {
	return r.SetStatusIf(id, status, message, rule, nil)
}

// SetStatusIf is SetStatusRule when allowed, given the run as it is under
// its lock, returns nil: a change that must not follow another (a pause
// of a run that has just completed) is refused, not written after it.
func (r *Recorder) SetStatusIf(id, status, message, rule string, allowed func(run *record.Run) error) (*record.Run, error) {
	var same *record.Run
	run, err := r.Update(id, func(run *record.Run) error {
		if record.Terminal(status) && run.Status == status {
			same = run
			return ErrUnchanged
		}
		if allowed != nil {
			if err := allowed(run); err != nil {
				return err
			}
		}
		now := r.nowMs()
		r.foldDriven(run, status, now)
		run.Status = status
		switch status {
		case record.RunStuck:
			run.StuckAt = &now
			run.ResolvedAt = nil
			run.ArtifactStatus = "failed"
		case record.RunFailed:
			run.ArtifactStatus = "failed"
		case record.RunCompleted:
			run.ArtifactStatus = "complete"
		}
		if record.Terminal(status) {
			run.PID, run.PGID = nil, nil // the driver is done with the run
			run.PIDStart, run.PGIDStart = nil, nil
		}
		if message != "" && status != record.RunCompleted && status != record.RunRunning && status != record.RunQueued {
			run.LastError = &message
		}
		if status == record.RunStuck {
			if err := r.writeStuckReport(run); err != nil {
				return fmt.Errorf("stuck report: %w", err)
			}
		}
		ev := record.Event{TS: now, RunID: id, Type: record.StatusEvent(status), Status: status, Message: message, Rule: rule}
		switch status {
		case record.RunCompleted:
			mode := CompletionMode(&run.Settings)
			ev.Mode = &mode
		case record.RunFailed:
			if message != "" {
				ev.Reason = &message
			}
		}
		return r.AppendEvent(ev)
	})
	if errors.Is(err, ErrUnchanged) {
		return same, err
	}
	return run, err
}

// foldDriven saves the working time of the driver that holds a run being
// stopped (paused, canceled, ended): its holder saves it only every 10 s
// and dies with the driver, so a driver stopped sooner counted nothing
// towards --max-duration (loop_duration_short_drives).
func (r *Recorder) foldDriven(run *record.Run, status string, now int64) {
	if (run.Status != record.RunRunning && run.Status != record.RunPaused) ||
		status == record.RunRunning || status == record.RunQueued || !r.St.Held(run.RunID) {
		return
	}
	run.Settings.Fold(time.UnixMilli(now))
}

// CompletionMode is what decided a run's completion (RUN_COMPLETED's
// mode): the agent's marker, read exact or trailing, when the run required
// it, else the validation alone.
func CompletionMode(set *runconfig.Settings) string {
	if !set.RequireCompletion {
		return "validation"
	}
	if set.CompletionMode != "" {
		return set.CompletionMode
	}
	return "trailing"
}

// AppendEvent appends a run event to events.jsonl and its row to report.tsv
// (the run's append lock held, as inside Update).
func (r *Recorder) AppendEvent(ev record.Event) error {
	if err := r.St.AppendEvent(ev); err != nil {
		return err
	}
	return r.appendReport(ev.RunID, store.EventRow(ev))
}

// Repair mends what a killed writer left in the run (torn tails, leftover
// folders and temporary files, derived files behind the log) and changes
// nothing else. Every write does this first; Repair is for a run that will
// not be written again.
func (r *Recorder) Repair(id string) error {
	if err := r.St.FindRun(id); err != nil {
		return err
	}
	lock, err := r.St.LockAppend(id)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	if err := r.fixRunID(id); err != nil {
		return err
	}
	st, err := r.repair(id)
	if err != nil {
		return err
	}
	if st.stale == nil {
		r.copies(st.run, artifacts.Rebuild) // derived copies too: a lost one is written again
	}
	return st.stale
}

// fixRunID rewrites the run_id of a run.json that names another run (its
// directory renamed or copied by hand): the directory name is the identity.
func (r *Recorder) fixRunID(id string) error {
	run, err := r.St.ReadRunAsIs(id)
	if err != nil || run.RunID == id {
		return err
	}
	r.Log.Warn("run.json named another run; the directory name is the run's identity, so run_id is rewritten", "run", id, "was", run.RunID)
	run.RunID = id
	return r.St.WriteRun(run)
}
