// Package runstate is the one door through which a run's state changes:
// a status (pause and cancel included), an iteration, an attempt, a final
// verification. Each writes its record, event and run.json through the
// recorder, fires the run's hooks and, when the run ends, applies the
// retention policy, so the driver, loop-record, loop-drive and `loop
// pause|cancel` with no driver alive change a run the same way.
package runstate

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/loopkit/loopkit/internal/artifacts"
	"github.com/loopkit/loopkit/internal/hooks"
	"github.com/loopkit/loopkit/internal/lazylog"
	"github.com/loopkit/loopkit/internal/progress"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/recorder"
	"github.com/loopkit/loopkit/internal/retention"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
)

// Writing is how a command writes runs, from its flags and the config
// files: every command that writes embeds it, so one key means one thing.
type Writing struct {
	// InlineCap caps inline text; MaxPatchBytes caps changes.patch.
	InlineCap     int   `long:"inline-cap" value-name:"BYTES" default:"1048576" range:"0,67108864" config:"inline_cap_bytes" description:"bytes of inline stdout/stderr kept in the record (the end)"`
	MaxPatchBytes int64 `long:"max-patch-bytes" value-name:"BYTES" default:"10485760" range:"1," config:"max_patch_bytes" description:"largest changes.patch kept; past it, a --stat summary"`
	// Retention when a run ends, from config files only (loop-clean has
	// the flags); Defaults sets them before the files are read.
	AutoClean bool `config:"auto_clean"`
	KeepLast  int  `config:"keep_last" range:"0,1000000"`
	KeepDays  int  `config:"keep_days" range:"0,36500"`
	// Copies outside the store (internal/artifacts) for a run whose
	// settings do not say, as a pipeline's loop-record makes: from the
	// environment, else the config files.
	LogDir       string `config:"log_dir"`
	ArtifactMode string `config:"artifact_mode"`
	GlobalLogDir string `config:"global_log_dir"`
	ArtifactDir  string `config:"artifact_dir"`
	// Transcripts is the transcripts setting of a run this command
	// creates (a pipeline's): its variable, else the config, as loop-step
	// resolves it, so the run and its steps agree.
	Transcripts string `config:"transcripts"`
}

// copyDefaults are the copy settings (internal/artifacts) of a run whose
// own settings do not say, as a pipeline's loop-record makes: runconfig
// resolves them as for the driver (each one's variable, then the config
// files w was filled from, then its default); a default is left out.
func (w Writing) copyDefaults() map[string]string {
	return resolve([]string{artifacts.KeyLogDir, artifacts.KeyArtifactMode, artifacts.KeyGlobalLogDir, artifacts.KeyArtifactDir},
		[]string{w.LogDir, w.ArtifactMode, w.GlobalLogDir, w.ArtifactDir})
}

// resolve is runconfig's resolution of the settings keys whose config
// values are vals (each one's variable, then vals, then its default),
// a default left out.
func resolve(keys, vals []string) map[string]string {
	cfg := map[string]runconfig.ConfigValue{}
	for i, v := range vals {
		if v != "" {
			cfg[runconfig.ByKey(keys[i]).Config] = runconfig.ConfigValue{Value: v, Where: "config"}
		}
	}
	// a bad value was refused where the config was read (exit 2); here
	// what resolved before it is kept
	set, _ := runconfig.Resolve(runconfig.Sources{Getenv: os.Getenv, Config: cfg, Keys: keys})
	out := map[string]string{}
	for _, k := range keys {
		if v := set.Get(k); v != "" && v != runconfig.ByKey(k).Default {
			out[k] = v
		}
	}
	return out
}

// Defaults are the settings no flag or file changed (go-flags sets the
// tagged ones).
func Defaults() Writing {
	return Writing{InlineCap: recorder.DefaultInlineCap, MaxPatchBytes: recorder.DefaultMaxPatchBytes,
		AutoClean: true, KeepLast: retention.DefaultKeepLast, KeepDays: retention.DefaultKeepDays}
}

// Door changes the runs of one store.
type Door struct {
	Rec *recorder.Recorder
	Log lazylog.Logger
	// clean is the policy applied when a run ends; nil: none.
	clean *retention.Policy
}

// Open is the writer of st, configured from w in this one place. workspace
// is the directory the command runs in (its git top level is recorded).
func Open(st *store.Store, l lazylog.Logger, w Writing, workspace string) *Door {
	r := &recorder.Recorder{St: st, Log: l, Trees: true, MaxPatchBytes: w.MaxPatchBytes, InlineCap: w.InlineCap}
	if w.InlineCap == 0 {
		r.InlineCap = -1 // 0 keeps nothing inline
	}
	r.CopyDefaults = w.copyDefaults()
	r.NewSettings = resolve([]string{"transcripts"}, []string{w.Transcripts})
	r.Workspace = workspace
	if top := store.GitTop(workspace); top != "" {
		r.Workspace = top
	}
	d := &Door{Rec: r, Log: l}
	if w.AutoClean {
		d.clean = &retention.Policy{KeepLast: w.KeepLast, KeepDays: w.KeepDays}
	}
	return d
}

// Plain is a door for status changes alone, with the default retention.
func Plain(st *store.Store, l lazylog.Logger) *Door {
	return Open(st, l, Defaults(), "")
}

// NoClean turns the automatic clean off (loop-record --no-clean).
func (d *Door) NoClean() *Door { d.clean = nil; return d }

// WithProgress sets the limits of run.json's progress block (the driver's
// prompts read it).
func (d *Door) WithProgress(l *progress.Limits) *Door { d.Rec.Progress = l; return d }

// SetStatus changes run id's status (its event, report row and run.json),
// fires the status's hook, and applies the retention policy when the run
// has ended.
func (d *Door) SetStatus(id, status, message string) (*record.Run, error) {
	return d.SetStatusRule(id, status, message, "")
}

// SetStatusRule is SetStatus for a status the driver's rule decided: the
// status event names the rule (internal/nextaction's).
func (d *Door) SetStatusRule(id, status, message, rule string) (*record.Run, error) {
	run, err := d.Rec.SetStatusRule(id, status, message, rule)
	return d.fire(id, status, message, run, err)
}

// fire follows a status change: its hook, and the clean once the run ended.
func (d *Door) fire(id, status, message string, run *record.Run, err error) (*record.Run, error) {
	if errors.Is(err, recorder.ErrUnchanged) {
		// an end the run already had: whoever asks, nothing fires again
		d.Log.Warn(fmt.Sprintf("run %s is already %s: nothing changed", id, status))
		return run, nil
	}
	if err != nil {
		return nil, err
	}
	hooks.ForRun(d.Rec.St, run, d.Log).Status(d.Rec.St, run, message)
	if record.Terminal(status) && d.clean != nil {
		retention.AutoClean(d.Rec.St, *d.clean, d.Log)
	}
	return run, nil
}

// Queue marks run id queued while its driver waits for a slot.
func (d *Door) Queue(id, why string) (*record.Run, error) {
	return d.SetStatus(id, record.RunQueued, why)
}

// ErrPausedWaiting: the run was paused while its driver waited for a slot.
var ErrPausedWaiting = errors.New("paused while it waited for a slot")

// Start marks run id running once a driver holds it (new, resumed or out
// of the queue), with RUN_STARTED naming the driver's worker id.
func (d *Door) Start(id, worker string) (*record.Run, error) {
	return d.change(id, func(run *record.Run) (record.Event, error) {
		if record.Terminal(run.Status) { // ended while its driver waited for a slot
			return record.Event{}, fmt.Errorf("run %s was %s while it waited: not started", id, run.Status)
		}
		if run.Status == record.RunPaused { // paused as its driver got the slot
			return record.Event{}, ErrPausedWaiting
		}
		return record.Event{Type: record.EventRunStarted, WorkerID: &worker}, nil
	})
}

// Resume marks a stopped run running again: change adjusts the run (new
// bounds, a prompt with the stuck report's hypotheses) and says what for
// RUN_RESUMED's message.
func (d *Door) Resume(id string, change func(run *record.Run) (string, error)) (*record.Run, error) {
	return d.change(id, func(run *record.Run) (record.Event, error) {
		msg, err := change(run)
		return record.Event{Type: record.EventRunResumed, Message: msg}, err
	})
}

// change makes run id running with the event ev gives, then fires the
// status's hooks as SetStatus does.
func (d *Door) change(id string, ev func(run *record.Run) (record.Event, error)) (*record.Run, error) {
	var reason string
	run, err := d.Rec.Update(id, func(run *record.Run) error {
		e, err := ev(run)
		if err != nil {
			return err
		}
		run.Status = record.RunRunning
		// counted from when the holder starts working (driven_at), not from
		// a checkpoint a killed driver left
		run.Settings.DrivenAt = 0
		e.TS, e.RunID, e.Status, reason = time.Now().UnixMilli(), id, record.RunRunning, e.Message
		return d.Rec.AppendEvent(e)
	})
	if err != nil {
		return nil, err
	}
	hooks.ForRun(d.Rec.St, run, d.Log).Status(d.Rec.St, run, reason)
	return run, nil
}

// Pause marks a running run paused: its driver stops after its step (a
// queued one before any). The status is checked under the run's lock,
// since the driver may end the run between the caller's look and this write.
func (d *Door) Pause(id, by string) (*record.Run, error) {
	return d.setIf(id, record.RunPaused, "paused by "+by, func(run *record.Run) error {
		if run.Status != record.RunRunning && run.Status != record.RunQueued {
			return fmt.Errorf("run %s is not running (%s): nothing to pause", id, run.Status)
		}
		return nil
	})
}

// Cancel marks a run canceled (its driver, if any, is already gone); a
// run that has ended otherwise keeps its end.
func (d *Door) Cancel(id, by string) (*record.Run, error) {
	return d.setIf(id, record.RunCanceled, "canceled by "+by, func(run *record.Run) error {
		if record.Terminal(run.Status) {
			return fmt.Errorf("run %s is already %s: nothing to cancel", id, run.Status)
		}
		return nil
	})
}

// setIf is SetStatus when allowed, given the run under its lock, says so.
func (d *Door) setIf(id, status, message string, allowed func(run *record.Run) error) (*record.Run, error) {
	run, err := d.Rec.SetStatusIf(id, status, message, "", allowed)
	return d.fire(id, status, message, run, err)
}

// RecordIteration records iteration want (0: the next) of run id from in,
// then fires the cost hooks the iteration's spending crossed.
func (d *Door) RecordIteration(id string, in *record.Input, want int) (*recorder.Result, error) {
	res, err := d.Rec.Record(id, in, want)
	if err != nil {
		return nil, err
	}
	if res.Repeat {
		d.Log.Info("iteration already recorded from the same input; nothing to do", "run", id, "iteration", res.Log.Iteration)
	} else {
		it := res.Log
		spend := hooks.Spend{Iteration: it.Iteration}.Add(it.CostUSD, it.LLMInputTokens, it.LLMOutputTokens)
		if r := in.Review; r != nil && it.Review != nil { // its reviewer's call went into the totals with it
			spend = spend.Add(r.CostUSD, r.LLMInputTokens, r.LLMOutputTokens)
		}
		d.costHooks(id, res.Run, spend)
	}
	if res.Warning != nil {
		d.Log.Warn("iteration stored; events, report.tsv, manifest.json and run.json will be repaired by the next writer", "run", id, "err", res.Warning)
	}
	return res, nil
}

// costHooks fires the cost hooks a record's spend crossed; run is run.json
// as the record wrote it, nil to read it.
func (d *Door) costHooks(id string, run *record.Run, spend hooks.Spend) {
	if run == nil {
		var err error
		if run, err = d.Rec.St.ReadRun(id); err != nil {
			return
		}
	}
	hooks.ForRun(d.Rec.St, run, d.Log).Cost(run, spend)
}

// RecordAttempt records an agent call that is not an iteration.
func (d *Door) RecordAttempt(id string, in *record.Input, kind string) (*recorder.AttemptResult, error) {
	res, err := d.Rec.RecordAttempt(id, in, kind)
	if err != nil {
		return nil, err
	}
	if res.Repeat && res.Attempt != nil {
		d.Log.Info("attempt already recorded from the same input; nothing to do", "run", id, "attempt", res.Attempt.Attempt)
	} else if a := res.Attempt; a != nil && !res.Repeat {
		d.costHooks(id, nil, hooks.Spend{Iteration: a.Iteration}.Add(a.CostUSD, a.LLMInputTokens, a.LLMOutputTokens))
	}
	if res.Warning != nil {
		d.Log.Warn("attempt stored; run.json will be brought up to date by the next writer", "run", id, "err", res.Warning)
	}
	return res, nil
}

// RecordVerification records a final verification command's result.
func (d *Door) RecordVerification(id string, in *record.Input) (*record.Verification, []byte, error) {
	return d.Rec.RecordVerification(id, in)
}
