package loopdrive

// Resuming a run: taking an existing run's driver lock, or saying who
// holds it.

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/driverargs"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/nextaction"
	"github.com/loopkit/loopkit/internal/procrec"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/treelock"
)

// resume takes an existing run's driver lock, or says who holds it. It
// returns "" when there is nothing to drive (the run is completed).
// workTreeThere refuses to resume a run whose work tree is gone (a
// worktree removed) or is now a link (the agent may have made it one):
// one line and exit 2 (a resume refused with a hint, as for any run the
// driver will not start), the run left as it was, never an internal error.
func workTreeThere(id string, run *record.Run) error {
	set := &run.Settings
	dir := set.Dir
	if dir == "" {
		return nil
	}
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		hint := "start a new run"
		if b := set.RunBranch; b != "" {
			hint = bringBack(run.WorkspaceRoot, dir, b, id, run.Iteration)
		}
		return &cli.ExitError{Code: exitcode.Usage, Err: fmt.Errorf("run %s works in %s, which is gone", id, dir), Hint: hint}
	case err != nil:
		return cli.Failf("run %s: %w", id, err)
	case fi.Mode()&os.ModeSymlink != 0:
		return &cli.ExitError{Code: exitcode.Usage, Err: fmt.Errorf("run %s works in %s, which is now a symlink: loopkit follows none there; move it away", id, dir)}
	case !fi.IsDir():
		return &cli.ExitError{Code: exitcode.Usage, Err: fmt.Errorf("run %s works in %s, which is not a directory now; move it away", id, dir)}
	}
	return nil
}

// promptGone drops a rewritten or resumed prompt the run no longer has
// (its settings, kept outside the store, outlive a store restored from a
// backup taken before the rewrite): every step would fail to read it. It
// names the file dropped, "" when none was.
func promptGone(run *record.Run) string {
	gone := ""
	if p := run.Settings.PromptCurrent; p != "" && missing(p) {
		run.Settings.PromptCurrent, gone = "", p
	}
	if w := run.Watchdog; w != nil && w.Prompt != "" && missing(w.Prompt) {
		gone = cmp.Or(gone, w.Prompt)
		w.Prompt = ""
	}
	return gone
}

func missing(path string) bool {
	_, err := os.Lstat(path)
	return errors.Is(err, os.ErrNotExist)
}

// notNewer refuses, before anything is locked or mended, a run a newer
// loopkit wrote: this one never rewrites its run.json, so its resume
// could only fail once started (exit 70, an internal error's status).
func notNewer(st *store.Store, id string) error {
	run, err := st.ReadRunAsIs(id)
	if err != nil {
		return nil // said by what reads it next
	}
	if err := store.NewerRun(run); err != nil {
		return &cli.ExitError{Code: exitcode.Usage, Err: err}
	}
	return nil
}

func (h *holder) resume(opts *holdOptions) (string, error) {
	id := opts.Run
	if err := findRun(h.st, id); err != nil {
		return "", err
	}
	if err := notNewer(h.st, id); err != nil {
		return "", err
	}
	if err := notPlanted(h.st, id); err != nil {
		return "", err
	}
	if err := h.lockDriver(id); err != nil {
		return "", err
	}
	// mend what a killed writer left, so the log's end is a commit
	if err := h.rec.Repair(id); err != nil {
		return "", cli.Failf("%w", err)
	}
	run, err := h.st.ReadRun(id)
	if err != nil {
		return "", cli.Failf("%w", err)
	}
	n := run.Iteration // after the repair above: the last committed one
	if run.Status == record.RunCompleted {
		h.emit("run", id) // first: the driver names the run in its message
		h.emit("status", record.RunCompleted)
		h.emit("exit", "0")
		return "", nil
	}
	switch {
	case opts.MaxIterations > 0 && opts.MaxIterations <= n:
		return "", cli.Usagef("run %s has run %s: --max-iterations must be more than that", id, nextaction.Count(n, "iteration"))
	case opts.MaxIterations == 0 && run.Status == record.RunStuck:
		return "", &cli.ExitError{Code: exitcode.Usage,
			Err:  fmt.Errorf("run %s is stuck after %s: resuming needs more", id, nextaction.Count(n, "iteration")),
			Hint: fmt.Sprintf("%s resume %s --max-iterations %d", driverargs.Prog(), id, n+nextaction.DefaultMaxIterations)}
	}
	if err := workTreeThere(id, run); err != nil {
		return "", err
	}
	if err := h.lockTree(run.Settings.Dir, id); err != nil {
		var e *cli.ExitError
		if errors.As(err, &e) && e.Hint == treelock.NewRunHint {
			e.Hint = treelock.BusyResumeHint
		}
		return "", err
	}
	stopLeft(h.env, h.st, id)
	if err := h.lockLive(id); err != nil {
		return "", err
	}
	unapplied(h.env, run, opts)
	msg := fmt.Sprintf("resumed after iteration %d (was %s)", n, run.Status)
	h.catchSignals() // it is running from here: the driver must hear of it
	resumed, err := h.door.Resume(id, func(run *record.Run) (string, error) {
		if opts.MaxIterations > 0 {
			run.Settings.MaxIterations = opts.MaxIterations
			msg += fmt.Sprintf(", max_iterations %d", opts.MaxIterations)
		}
		if opts.HasMaxDuration {
			run.Settings.MaxDuration = opts.MaxDuration
			msg += ", max_duration " + opts.MaxDuration.String()
		}
		for _, k := range slices.Sorted(maps.Keys(opts.Caps)) { // checked when read
			if err := run.Settings.Set(k, opts.Caps[k]); err != nil {
				return "", err
			}
			msg += ", " + k + " " + opts.Caps[k]
		}
		config := opts.ConfigFile != "" && opts.ConfigFile != run.Settings.ConfigFile
		if config {
			run.Settings.ConfigFile = opts.ConfigFile
			msg += ", config " + opts.ConfigFile
		}
		run.Settings.ResumedAfter = n
		if run.Status == record.RunStuck && run.Watchdog != nil {
			// the person chose to go on: the watchdog judges the new
			// iterations, as after a rewrite, not the ones it stopped on
			run.Watchdog.Since = max(run.Watchdog.Since, n)
		}
		if run.Merge != nil && run.Merge.Status == record.MergeFailed { // its event stays
			run.Merge = nil
			msg += ", the merge to be tried again"
		}
		if gone := promptGone(run); gone != "" {
			h.env.Log.Warn(fmt.Sprintf("run %s: its prompt %s is gone (a store restored from a backup, or removed by hand): it goes on with %s", id, gone, run.Settings.Prompt))
			msg += ", the run's own prompt (" + filepath.Base(gone) + " gone)"
		}
		if p, err := h.promptWithHypotheses(run, n); err != nil {
			return "", err
		} else if p != "" {
			run.Settings.PromptCurrent = p
			msg += ", with the stuck report's hypotheses in the prompt"
		}
		return msg, nil
	})
	if err != nil {
		h.endCatch()
		return "", cli.Failf("%w", err)
	}
	if opts.MaxIterations > 0 || opts.HasMaxDuration || len(opts.Caps) > 0 || resumed.Settings.ConfigFile != run.Settings.ConfigFile { // the person's new bounds, or config
		if err := runconfig.Keep(h.st.RunDir(id), &resumed.Settings); err != nil {
			h.env.Log.Warn("the run's new bounds or config are not kept outside the workspace", "err", err)
		}
	}
	h.emit("note", fmt.Sprintf("resuming run %s after iteration %d", id, n)) // said by the driver, as its own lines
	return id, h.announce(id)
}

// queueKeys are the settings a resume reads from the environment and
// config as a new run does (the queue it waits in is now's); it keeps
// every other setting its run started with.
var queueKeys = []string{"max_concurrency", "max_runs_per_workspace", "queue_policy"}

// unapplied warns about each LOOP_* variable of a run's setting that
// says otherwise than the resumed run keeps: the resume does not apply
// it, and a person who set it for this resume must hear so.
func unapplied(env *cli.Env, run *record.Run, opts *holdOptions) {
	given := map[string]bool{"max_iterations": opts.MaxIterations > 0, "max_duration": opts.HasMaxDuration}
	for k := range opts.Caps {
		given[k] = true
	}
	for _, f := range runconfig.Fields() {
		v := os.Getenv(f.Env)
		if f.Env == "" || v == "" || given[f.Key] || slices.Contains(queueKeys, f.Key) {
			continue
		}
		var now runconfig.Settings
		if now.Set(f.Key, v) != nil || now.Get(f.Key) == run.Settings.Get(f.Key) {
			continue
		}
		fix := "start a new run to change it"
		if slices.Contains([]string{"max_iterations", "max_duration", "max_cost", "max_tokens"}, f.Key) {
			fix = "give " + f.Name() + " to the resume to change it"
		}
		env.Log.Warn(fmt.Sprintf("%s=%q not applied: the resumed run keeps the %s it started with (%q); %s",
			f.Env, v, f.Key, run.Settings.Get(f.Key), fix))
	}
}

// lockDriver takes the run's driver lock without waiting. A lock held by a
// driver that is already dead (its holder about to notice) is waited for
// briefly; a live driver makes the run busy.
func (h *holder) lockDriver(id string) error {
	path := h.st.RunPath(id, store.DriverLock)
	deadline := time.Now().Add(3 * time.Second)
	for {
		l, err := store.LockFile(path, true, false)
		if err != nil && !errors.Is(err, store.ErrLocked) {
			return cli.Failf("run %s: %w", id, err)
		}
		// the driver named is one loopkit recorded, not run.json's pid. One
		// alive drives the run even when its lock was granted here: the
		// agent can remove or replace the lock file the driver holds.
		for pid := range procrec.Drivers(h.st.RunDir(id)) {
			if l != nil {
				l.Unlock()
			}
			return busy(h.st, id, pid)
		}
		if err == nil {
			h.locks = append(h.locks, l)
			h.nameDriver(id)
			return nil
		}
		if time.Now().After(deadline) {
			return lockStranger(h.st, id)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// busy is resume's refusal of a run a live driver holds, with the hint
// that fits what the driver does: a paused run's driver is finishing its
// step, a queued one's waits for a slot (neither is paused again).
func busy(st *store.Store, id string, pid int) error {
	err := fmt.Errorf("run %s is busy: the driver with pid %d is driving it", id, pid)
	hint := fmt.Sprintf("stop it first with '%[1]s cancel %[2]s' or '%[1]s pause %[2]s'", driverargs.Prog(), id)
	if run, rerr := st.ReadRun(id); rerr == nil {
		switch run.Status {
		case record.RunPaused:
			err = fmt.Errorf("run %s is paused, and its driver (pid %d) is still finishing its step", id, pid)
			hint = fmt.Sprintf("resume it once that driver has exited; or '%s cancel %s'", driverargs.Prog(), id)
		case record.RunQueued:
			err = fmt.Errorf("run %s is queued: its driver (pid %d) waits for a free slot to drive it", id, pid)
			hint = fmt.Sprintf("it starts by itself; '%s cancel %s' ends it", driverargs.Prog(), id)
		}
	}
	return &cli.ExitError{Code: exitcode.Busy, Err: err, Hint: hint}
}

func driverPID(st *store.Store, id string) int {
	run, err := st.ReadRun(id)
	if err != nil || run.PID == nil {
		return 0
	}
	return *run.PID
}
