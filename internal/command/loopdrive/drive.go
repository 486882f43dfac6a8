// Package loopdrive is the loop-drive command: what scripts/loop asks Go
// to do, so that the bash driver only sequences.
package loopdrive

import (
	"slices"
	"strings"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/driverargs"
	"github.com/loopkit/loopkit/internal/gitrun"
	"github.com/loopkit/loopkit/internal/hooks"
	"github.com/loopkit/loopkit/internal/nextaction"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runstate"
	"github.com/loopkit/loopkit/internal/settings"
	"github.com/loopkit/loopkit/internal/store"
)

const usage = `COMMAND [OPTIONS]
  loop-drive new ARGS...       (ARGS: those of loop run)
  loop-drive resume ARGS...    (ARGS: those of loop resume)
  loop-drive resume-all ARGS... (loop resume --interrupted | --print-unit)
  loop-drive next --run ID
  loop-drive record --run ID --iteration N < STEP_AND_VALIDATION
  loop-drive attempt --run ID < STEP
  loop-drive cancel --run ID | pause --run ID
  loop-drive merge --run ID
  loop-drive wait --run ID --seconds S
  loop-drive init [--force]    (loop init)
  loop-drive trust [FILE...]   (loop trust)
  loop-drive usage

Examples:
  $ loop-drive next --run RUN
  $ loop-drive cancel --run RUN

The Go half of the driver, loop, which runs it. new and resume read the
rest as the driver's own command line (flags, then LOOP_* variables, then
the config files, then defaults; 'usage' prints that help). new checks
every setting (exit 2 on the first bad one, nothing created) and creates a
run; both take the run's driver lock, wait for a concurrency slot, print
the store, the run's settings and the agent's argv as NUL-terminated
KEY=VALUE records, and stay alive holding the lock until their parent (the
driver) exits or sends SIGUSR1.

next prints the driver's next action as key=value lines (action=iterate,
action=wait or action=stop, ...), decided from run.json and the end of the
log; the watchdog and the store's rate-limit note are asked here too.
record records iteration N from the step and validation records on
stdin (as loop-record --iteration N), prints its loop-view logs line as
summary=LINE, then the next action as next. attempt keeps a step that
could not work (its record says cannot_work) as an attempt, with no
validation, and prints the next action: the stop that fails the run.

trust (loop trust) shows the commands a config file names
(default: the store's and LOOP_CONFIG's) and accepts it as it is: new
refuses a config that names commands (verify_cmds, final_verify_cmds,
reviewer, run_naming_model, on_event), a worktree path
(worktree_path_template) or retention (keep_last, keep_days), or one
accepted before, unless its content was accepted, recorded in
$XDG_STATE_HOME/loopkit/trusted.

wait waits out a rate limit for the driver (action=wait): S seconds at
most, less once the run is no longer running (paused or canceled from
another shell), so that the driver stops at once instead of after the wait.

merge merges a completed worktree run's branch into its merge target in
the primary worktree (never pushed) and prints the target's new commit; a
merge that fails is recorded in the run, and next then fails the run.
The old mode flags (--next, --record, ...) work for one more release.

Exit status: 0 done; 1 failure; 2 usage or a bad setting; 75 the run is
held by another driver.`

// Options are loop-drive's flags (--new and --resume read the driver's own
// flags instead: internal/driverargs).
type Options struct {
	cli.Common
	Run       string  `long:"run" env:"LOOP_RUN_ID" value-name:"ID" description:"the run" unquote:"false"`
	Next      bool    `hidden:"yes" long:"next" description:"print the next action"`
	Record    bool    `hidden:"yes" long:"record" description:"record iteration --iteration from stdin, print its summary line and the next action"`
	Iteration int     `long:"iteration" value-name:"N" description:"with record: the iteration's number"`
	Attempt   bool    `hidden:"yes" long:"attempt" description:"keep the step on stdin, which could not work, as an attempt; print the next action"`
	Cancel    bool    `hidden:"yes" long:"cancel" description:"stop the run's driver and mark the run canceled"`
	Pause     bool    `hidden:"yes" long:"pause" description:"let the current step finish, then stop the driver; the run is paused"`
	Merge     bool    `hidden:"yes" long:"merge" description:"merge the completed run's branch into its merge target"`
	Usage     bool    `hidden:"yes" long:"usage" description:"print the help of the driver, loop"`
	Wait      bool    `no-flag:"true"`
	Seconds   float64 `long:"seconds" value-name:"S" description:"with wait: how long at most"`
	// --record, --cancel and --pause write as loop-record does, by the
	// same flags and config keys.
	runstate.Writing
}

// Name is the name loop-drive's messages go by: `loop` under the driver
// (which exports LOOP_PROG), whose user never typed loop-drive.
func Name() string {
	if driverargs.Driven() {
		return "loop"
	}
	return "loop-drive"
}

// Main is loop-drive.
func Main(env *cli.Env) error {
	return cli.Done(run(env))
}

func run(env *cli.Env) error {
	if len(env.Args) > 0 {
		// these read the rest of the line themselves
		sub := strings.TrimPrefix(env.Args[0], "--")
		if sub != env.Args[0] && slices.Contains([]string{"new", "resume", "resume-all", "init", "trust"}, sub) {
			deprecated(env, sub)
		}
		switch sub {
		case "new", "resume":
			return driverLine(env, "--"+sub, env.Args[1:])
		case "resume-all":
			return resumeAll(env, env.Args[1:])
		case "init":
			return initProject(env, env.Args[1:])
		case "trust":
			return acceptConfig(env, env.Args[1:])
		}
	}
	opts := &Options{Writing: runstate.Defaults()}
	p := cli.NewParser(env, opts, usage)
	addSubcommands(p)
	env.HelpHides = helpHides
	args, err := cli.Parse(env, p, &opts.Common, env.Args)
	if err != nil {
		return err
	}
	if err := pickMode(env, p, opts); err != nil {
		return err
	}
	if opts.Usage {
		_, err := env.Stdout.WriteString(driverargs.Help())
		return err
	}
	if opts.Record && opts.Iteration <= 0 {
		return env.UsageError("record needs --iteration N (1 or more)")
	}
	if !opts.Record && p.FindOptionByLongName("iteration").IsSet() {
		return env.UsageError("--iteration goes with record only")
	}
	if seconds := p.FindOptionByLongName("seconds").IsSet(); !opts.Wait && seconds {
		return env.UsageError("--seconds goes with wait only")
	} else if opts.Wait && (!seconds || opts.Seconds < 0) {
		return env.UsageError("wait needs --seconds S, 0 or more")
	}
	if len(args) > 0 {
		return env.UsageError("unexpected argument %q", args[0])
	}
	if opts.Run == "" {
		return env.UsageError("no run: give --run ID")
	}
	if err := store.ValidRunID(opts.Run); err != nil {
		return env.UsageError("%v", err)
	}
	st, cwd, err := settings.Open(env, p, &opts.Common, opts)
	if err != nil {
		return err
	}
	if opts.InlineCap < 0 || opts.MaxPatchBytes < 1 {
		return env.UsageError("inline_cap_bytes must not be negative and max_patch_bytes must be 1 or more")
	}
	door := runstate.Open(st, env.Log, opts.Writing, cwd)
	door.Rec.NoCreate = true // the driver made its run: one gone is not made again
	switch {
	case opts.Next:
		return next(env, st, opts.Run)
	case opts.Record:
		return recordNext(env, door.WithProgress(promptProgress(st)), opts)
	case opts.Attempt:
		return attemptNext(env, door, opts.Run)
	case opts.Cancel:
		return cancel(env, door, opts.Run)
	case opts.Merge:
		return mergeBranch(env, st, opts.Run)
	case opts.Wait:
		return waitRun(env, st, opts.Run, opts.Seconds)
	}
	return pause(env, door, opts.Run)
}

func next(env *cli.Env, st *store.Store, id string) error {
	a, err := decide(env, st, id)
	if err != nil {
		return err
	}
	return a.Write(env.Stdout)
}

// decide is the next action of run id.
func decide(env *cli.Env, st *store.Store, id string) (nextaction.Action, error) {
	return decideAfter(env, st, id, nil, nil)
}

// decideAfter is the next action of run id after attempt, a step kept as
// an attempt instead of an iteration (nil for none).
// written is run.json as this process just wrote it (nil: read it).
func decideAfter(env *cli.Env, st *store.Store, id string, attempt *record.Agent, written *record.Run) (nextaction.Action, error) {
	if err := st.FindRun(id); err != nil {
		return nextaction.Action{}, cli.Failf("%w", err)
	}
	var in *nextaction.Input
	var err error
	if written != nil && written.RunID == id && len(written.Settings.Changed()) == 0 {
		in, err = nextaction.LoadWith(st, written)
	} else {
		in, err = nextaction.Load(st, id)
	}
	if err != nil {
		return internalError(env, err), nil
	}
	in.Attempt = attempt
	in.Driver = holding == id
	in.GitStopped = gitrun.Aborted()
	restoreSettings(env, st, id, in.Run)
	// the watchdog and rate-limit rules record through the door's writer
	in.Record, in.Log = runstate.Plain(st, env.Log).Rec, env.Log
	in.Hook = func(event string, fields map[string]any) {
		hooks.ForRun(st, in.Run, env.Log).Fire(event, id, fields)
	}
	a := nextaction.Decide(in, nextaction.Rules)
	if a.Rule == nextaction.RuleInternalError {
		env.Log.Error("could not decide the next action", "err", strings.TrimPrefix(a.Reason, "internal error: "))
	}
	if a.Kind == nextaction.Stop && (in.Run.Status == record.RunRunning || in.Driver) {
		// the run's last working time, exact: the holder saves it only now
		// and then (a paused run's driver works until this stop too)
		r := runstate.Plain(st, env.Log).Rec
		if _, err := r.Update(id, func(run *record.Run) error {
			nextaction.FoldDriven(&run.Settings, in.Now)
			return nil
		}); err != nil {
			return nextaction.Action{}, cli.Failf("%w", err)
		}
	}
	return a, nil
}

// restoreSettings: run.json's settings were changed after the run started
// (the agent can write the store). The decision is made with the settings
// fixed at start (store.ReadRun reads them); any update writes them back
// and says so once (recorder.Update).
func restoreSettings(env *cli.Env, st *store.Store, id string, run *record.Run) {
	if len(run.Settings.Changed()) == 0 {
		return
	}
	if _, err := runstate.Plain(st, env.Log).Rec.Update(id, func(*record.Run) error { return nil }); err != nil {
		env.Log.Warn("run.json's settings not restored", "run", id, "err", err)
	}
}

// internalError is the action after a decision failed: the run stops
// failed with the error (the driver records it), never left running.
func internalError(env *cli.Env, err error) nextaction.Action {
	env.Log.Error("could not decide the next action", "err", err)
	return nextaction.InternalError(err)
}
