// Package looprecord is the loop-record command: runs written by hand or
// by CI, one record at a time, through the one door (internal/runstate).
package looprecord

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/lazyre"
	"github.com/loopkit/loopkit/internal/procid"
	rec "github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/recorder"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/runstate"
	"github.com/loopkit/loopkit/internal/settings"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/view"
)

const usage = `[OPTIONS] < RECORDS
loop-record new [--run ID] [--name NAME] [--setting KEY=VALUE ...]
loop-record status STATUS --run ID [--message TEXT] [--rule NAME]
loop-record attempt --run ID [--kind KIND] < STEP
loop-record verify|hypotheses --run ID < RECORD
loop-record snapshot MILESTONE | rate-limit STEP_FILE --run ID
loop-record set --run ID [--setting KEY=VALUE ...] [--pid PID]
loop-record repair --run ID

Examples:
  $ { loop-step ... ; loop-validate -- go test ./...; } | loop-record --run R
  $ loop-validate -- make test | loop-record --run ci --exit-status
  $ loop-record status canceled --run R --message 'stopped by hand'

Reads a validation record (from loop-validate) and optionally a step record
(from loop-step) on stdin, merges them into one IterationLog, appends it to
the run's iterations.jsonl (the commit point), writes the iteration folder
and prints the IterationLog (with --finish or --summary, one line on
stderr instead). The run and the store are created on first use.
'attempt' records an agent call that is not an iteration (an interrupted
step, a rate-limited try, a stuck-report agent, a reviewer, a naming call)
in attempts.jsonl and prints it; its tokens and cost count in the totals.
'new' creates a run and prints its id; 'status' sets a run's status
(running, completed, failed, stuck, canceled), fires its hook, applies the
retention policy when the run ended, and prints run.json. The old mode
flags (--new-run, --status, --attempt, ...) work for one more release.

Exit status: 0 recorded (a derived file that failed after the commit is a
warning: the next writer repairs it); 1 not recorded: an I/O failure or an
--iteration conflict; 2 usage; 65 bad input on stdin. With --exit-status,
the recorded validation's exit code (124 when it timed out, 1 when it could
not run): whatever it is, the record was stored.`

// Options are loop-record's flags.
type Options struct {
	cli.Common
	Run        string   `long:"run" env:"LOOP_RUN_ID" value-name:"ID" description:"run to record into (created on first use)" unquote:"false"`
	Iteration  int      `long:"iteration" value-name:"N" range:"1," description:"the iteration number this must be: the next one, or a recorded one with the same input (a no-op)"`
	NewRun     bool     `hidden:"yes" long:"new-run" description:"create a run (id from --run, else a new time-sortable id) and print its id"`
	Name       string   `long:"name" value-name:"NAME" description:"name of the run created by new" unquote:"false"`
	NameSource string   `long:"name-source" value-name:"SOURCE" description:"where --name came from (flag, spec_slug, agent), kept in run.json" unquote:"false"`
	Spec       string   `long:"spec" value-name:"FILE" description:"the run's spec, kept as run.json spec_path (with new)" unquote:"false"`
	Plan       string   `long:"plan" value-name:"FILE" description:"the run's plan, kept as run.json plan_path (with new)" unquote:"false"`
	Status     string   `hidden:"yes" long:"status" value-name:"STATUS" description:"set the run's status: running, completed, failed, stuck, canceled" unquote:"false"`
	Message    string   `long:"message" value-name:"TEXT" description:"reason kept with status (the run's last_error)" unquote:"false"`
	Rule       string   `long:"rule" value-name:"NAME" description:"with status: the driver's rule that decided it, kept in its event" unquote:"false"`
	Setting    []string `long:"setting" value-name:"KEY=VALUE" description:"store a setting in the run (repeatable); with new or set" unquote:"false"`
	ExitStatus bool     `long:"exit-status" description:"exit with the recorded validation exit code"`
	Finish     bool     `long:"finish" description:"after recording, end the run: completed when the validation passed, else failed"`
	Summary    bool     `long:"summary" description:"say what was recorded in one line on stderr instead of the record on stdout (also with --exit-status and --finish)"`
	Snapshot   string   `hidden:"yes" long:"snapshot" value-name:"MILESTONE" description:"write a context snapshot (context/context_NNN.md, context_latest.md) for this milestone and print its path" unquote:"false"`
	PID        int      `long:"pid" value-name:"PID" range:"2," description:"record the driver's pid in run.json (with --run; cleared when the run ends)"`
	PGID       int      `long:"pgid" value-name:"PGID" range:"2," description:"record the driver's process group in run.json"`
	Attempt    bool     `hidden:"yes" long:"attempt" description:"record the step on stdin as an attempt, not an iteration"`
	Kind       string   `long:"kind" value-name:"KIND" description:"what the attempt was: interrupted, rate_limited, stuck_report, reviewer, naming, agent (default: from the step)" unquote:"false"`
	RateLimit  string   `hidden:"yes" long:"rate-limit" value-name:"STEP_FILE" description:"if the step record in STEP_FILE hit a rate limit, record it as an attempt, leave the store's note and print the wait in ms (else 0)" unquote:"false"`
	Repair     bool     `hidden:"yes" long:"repair" description:"only mend what a killed writer left in the run (every write does this first)"`
	Verify     bool     `hidden:"yes" long:"verify" description:"read one validation record on stdin: a final verification command, kept in verify.jsonl and manifest.json"`
	Hypotheses bool     `hidden:"yes" long:"hypotheses" description:"read a step record on stdin and put its final message into the run's stuck.md Hypotheses section"`
	NoClean    bool     `long:"no-clean" description:"do not apply the retention policy after a terminal status or --finish"`
	runstate.Writing
}

// Main is loop-record.
func Main(env *cli.Env) error {
	return cli.Done(run(env))
}

func run(env *cli.Env) error {
	opts := &Options{Writing: runstate.Defaults()}
	p := cli.NewParser(env, opts, usage)
	addSubcommands(p)
	env.HelpHides = helpHides
	args, err := cli.Parse(env, p, &opts.Common, env.Args)
	if err != nil {
		return err
	}
	mode, args, err := fromSubcommand(env, p, opts, args)
	if err != nil {
		return err
	}
	if len(args) > 0 && p.Active == nil { // loop-record stauts completed
		names := make([]string, len(subcommands))
		for i, c := range subcommands {
			names[i] = c.name
		}
		return env.UsageError("unknown subcommand %q: give one of %s, or none to record the iteration on stdin", args[0], strings.Join(names, ", "))
	}
	if len(args) > 0 {
		return env.UsageError("unexpected argument %q", args[0])
	}
	if mode, err = checkFlags(env, p, mode); err != nil {
		return err
	}
	deprecated(env, p, mode)
	if opts.Run != "" {
		if err := store.ValidRunID(opts.Run); err != nil {
			return env.UsageError("%v", err)
		}
	}
	if p.FindOptionByLongName("iteration").IsSet() && opts.Iteration <= 0 {
		return env.UsageError("--iteration must be 1 or more, got %d", opts.Iteration)
	}
	if opts.Status != "" && !slices.Contains(rec.RunStatuses, opts.Status) {
		return env.UsageError("unknown status %q (want one of %s)", opts.Status, strings.Join(rec.RunStatuses, ", "))
	}
	if opts.Kind != "" && !kindPattern.MatchString(opts.Kind) {
		return env.UsageError("--kind %q: want a lower-case word such as reviewer or rate_limited", opts.Kind)
	}
	if opts.Kind != "" && !opts.Attempt {
		return env.UsageError("--kind goes with %s", said(p, "attempt"))
	}
	if err := checkPIDs(env, opts, func(name string) bool { return p.FindOptionByLongName(name).IsSet() }); err != nil {
		return err
	}
	runSettings, err := parseSettings(opts.Setting)
	if err != nil {
		return env.UsageError("%v", err)
	}
	st, cwd, err := settings.Open(env, p, &opts.Common, opts)
	if err != nil {
		return err
	}
	if opts.InlineCap < 0 {
		return env.UsageError("--inline-cap must not be negative, got %d", opts.InlineCap)
	}
	if opts.MaxPatchBytes < 1 {
		return env.UsageError("--max-patch-bytes must be 1 or more, got %d", opts.MaxPatchBytes)
	}
	door := runstate.Open(st, env.Log, opts.Writing, cwd)
	if opts.NoClean {
		door.NoClean()
	}
	r := door.Rec

	switch {
	case opts.NewRun:
		return newRun(env, r, opts, runSettings)
	case opts.Status != "":
		if opts.Run == "" {
			return env.UsageError("%s needs --run (or LOOP_RUN_ID)", said(p, "status"))
		}
		run, err := door.SetStatusRule(opts.Run, opts.Status, opts.Message, opts.Rule)
		if err != nil {
			return failure(err)
		}
		if rec.Terminal(opts.Status) && cli.ConfigChanged(st.ConfigFile(), opts.Config) {
			env.Log.Warn("the config changed while the run went on (the agent can write it): this run kept the one it started with, the next reads it as it is now: check it first",
				"file", st.ConfigFile())
		}
		return printJSON(env, run)
	case opts.Attempt:
		if opts.Run == "" {
			return env.UsageError("%s needs --run (or LOOP_RUN_ID)", said(p, "attempt"))
		}
		return recordAttempt(env, door, opts)
	case opts.RateLimit != "":
		if opts.Run == "" {
			return env.UsageError("%s needs --run (or LOOP_RUN_ID)", said(p, "rate-limit"))
		}
		return rateLimitMode(env, door, opts.Run, opts.RateLimit)
	case opts.Repair:
		if opts.Run == "" {
			return env.UsageError("%s needs --run (or LOOP_RUN_ID)", said(p, "repair"))
		}
		if err := r.Repair(opts.Run); err != nil {
			return failure(err)
		}
		return nil
	case opts.Verify:
		if opts.Run == "" {
			return env.UsageError("%s needs --run (or LOOP_RUN_ID)", said(p, "verify"))
		}
		in, err := readInput(env)
		if err != nil {
			return err
		}
		_, line, err := door.RecordVerification(opts.Run, in)
		if err != nil {
			return failure(err)
		}
		_, err = env.Stdout.Write(append(line, '\n'))
		return err
	case opts.Hypotheses:
		if opts.Run == "" {
			return env.UsageError("%s needs --run (or LOOP_RUN_ID)", said(p, "hypotheses"))
		}
		in, err := readInput(env)
		if err != nil {
			return err
		}
		if in.Step == nil {
			return cli.BadInput(fmt.Errorf("stdin: --hypotheses takes a step record"))
		}
		if err := r.FillHypotheses(opts.Run, in.Step.FinalMessage); err != nil {
			return failure(err)
		}
		_, err = fmt.Fprintln(env.Stdout, r.St.RunPath(opts.Run, store.StuckFile))
		return err
	case opts.Snapshot != "":
		if opts.Run == "" {
			return env.UsageError("%s needs --run (or LOOP_RUN_ID)", said(p, "snapshot"))
		}
		path, err := r.Snapshot(opts.Run, opts.Snapshot)
		if err != nil {
			return failure(err)
		}
		_, err = fmt.Fprintln(env.Stdout, path)
		return err
	case len(runSettings) > 0 || opts.PID != 0 || opts.PGID != 0:
		if opts.Run == "" {
			if p.Active != nil { // set
				return env.UsageError("%s needs --run (or LOOP_RUN_ID)", p.Active.Name)
			}
			return env.UsageError("--setting, --pid and --pgid need --run or --new-run")
		}
		if len(runSettings) > 0 && runconfig.IsKept(r.St.RunDir(opts.Run)) {
			return env.UsageError("run %s's settings were fixed when its driver started it ('loop resume %s --max-iterations N' gives it more)", opts.Run, opts.Run)
		}
		run, err := r.Update(opts.Run, func(run *rec.Run) error {
			for _, kv := range runSettings {
				if err := run.Settings.Set(kv[0], kv[1]); err != nil {
					return cli.WithCode(exitcode.Usage, fmt.Errorf("--setting %s: %w", kv[0], err))
				}
			}
			if opts.PID != 0 {
				run.PID, run.PIDStart = &opts.PID, startOf(env, opts.PID)
			}
			if opts.PGID != 0 {
				run.PGID, run.PGIDStart = &opts.PGID, startOf(env, opts.PGID)
			}
			return nil
		})
		if err != nil {
			return failure(err)
		}
		return printJSON(env, run)
	}
	return recordIteration(env, door, opts)
}

func recordIteration(env *cli.Env, door *runstate.Door, opts *Options) error {
	if opts.Run == "" {
		return env.UsageError("no run: give --run ID (or set LOOP_RUN_ID)")
	}
	in, err := readInput(env)
	if err != nil {
		return err
	}
	res, err := door.RecordIteration(opts.Run, in, opts.Iteration)
	var ie *rec.InputError
	if errors.As(err, &ie) {
		return cli.BadInput(fmt.Errorf("stdin %w", err))
	}
	if err != nil {
		return failure(err)
	}
	// --finish and --summary say it in one line on stderr: a CI log gets
	// that line, not a kilobyte of JSON (loop-view logs --json has it)
	if !opts.Finish && !opts.Summary {
		if _, err := env.Stdout.Write(append(res.Line, '\n')); err != nil {
			return err
		}
	}
	status := ""
	if opts.Finish {
		status = rec.RunCompleted
		msg := opts.Message
		if exitStatus(res.Log) != 0 {
			status = rec.RunFailed
			if msg == "" {
				msg = fmt.Sprintf("iteration %d: %s", res.Log.Iteration, outcome(res.Log))
			}
		}
		if _, err := door.SetStatus(opts.Run, status, msg); err != nil {
			return failure(err)
		}
	}
	if opts.ExitStatus || opts.Finish || opts.Summary {
		if err := env.Stdout.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(env.Stderr, summaryLine(opts.Run, res.Log, status))
	}
	if opts.ExitStatus {
		return cli.Silent(exitStatus(res.Log))
	}
	return nil
}

var kindPattern = lazyre.New(`^[a-z][a-z0-9_]{0,31}$`)

func recordAttempt(env *cli.Env, door *runstate.Door, opts *Options) error {
	in, err := readInput(env)
	if err != nil {
		return err
	}
	if in.Step == nil || in.Validation != nil {
		return cli.BadInput(fmt.Errorf("stdin: --attempt takes one step record"))
	}
	res, err := door.RecordAttempt(opts.Run, in, opts.Kind)
	if ie := (*rec.InputError)(nil); errors.As(err, &ie) {
		return cli.BadInput(fmt.Errorf("stdin %w", err))
	}
	if err != nil {
		return failure(err)
	}
	if res.InIteration > 0 {
		env.Log.Info("this step is already iteration "+strconv.Itoa(res.InIteration)+"'s; nothing to do", "run", opts.Run)
		return nil
	}
	_, err = env.Stdout.Write(append(res.Line, '\n'))
	return err
}

// summaryLine is what a CI log shows of a recorded stage, e.g.
// "ci #3: make test — exit 1 — 0.9s — see loop-view output ci 3".
func summaryLine(run string, it *rec.IterationLog, status string) string {
	parts := []string{
		fmt.Sprintf("%s #%d: %s", run, it.Iteration, view.Escape(it.ValidationCommand, false)),
		outcome(it),
		view.Millis(it.DurationMs),
	}
	if status != "" {
		parts = append(parts, "run "+status)
	}
	parts = append(parts, fmt.Sprintf("see loop-view output %s %d", run, it.Iteration))
	return strings.Join(parts, " — ")
}

// outcome says how the validation ended, in a few words.
func outcome(it *rec.IterationLog) string {
	switch {
	case it.TimedOut:
		return "timed out"
	case it.Signal != nil:
		return "killed by " + *it.Signal
	case it.Error != nil && it.ExitCode < 0:
		return "did not run: " + view.Escape(*it.Error, false)
	}
	return fmt.Sprintf("exit %d", it.ExitCode)
}

// readInput reads and decodes the records on stdin (exit 65 when they are bad).
func readInput(env *cli.Env) (*rec.Input, error) {
	in, err := rec.ReadInput(env.Stdin)
	var ie *rec.InputError
	if errors.As(err, &ie) {
		return nil, cli.BadInput(fmt.Errorf("stdin %w", err))
	}
	if err != nil {
		return nil, cli.Failf("read stdin: %w", err)
	}
	return in, nil
}

// exitStatus is --exit-status: the validation's own code, 124 for a timeout,
// 1 when it did not run or exit by itself.
func exitStatus(it *rec.IterationLog) int {
	switch {
	case it.TimedOut:
		return exitcode.Timeout
	case it.ExitCode < 0:
		return exitcode.Failure
	}
	return it.ExitCode
}

func newRun(env *cli.Env, r *recorder.Recorder, opts *Options, settings [][2]string) error {
	id := opts.Run
	if id == "" {
		id = store.NewRunID(opts.Name, time.Now())
	}
	name := opts.Name
	if name == "" {
		name = id
	}
	run := store.NewRun(id, name, time.Now().UnixMilli())
	run.WorkspaceRoot = r.Workspace
	run.NameSource = opts.NameSource
	r.ApplyNewSettings(run) // --setting below wins
	for _, p := range []struct {
		dst  **string
		path string
	}{{&run.SpecPath, opts.Spec}, {&run.PlanPath, opts.Plan}} {
		if p.path != "" {
			abs, err := filepath.Abs(p.path)
			if err != nil {
				return cli.Failf("%w", err)
			}
			*p.dst = &abs
		}
	}
	for _, kv := range settings {
		if err := run.Settings.Set(kv[0], kv[1]); err != nil {
			return cli.WithCode(exitcode.Usage, fmt.Errorf("--setting %s: %w", kv[0], err))
		}
	}
	if err := r.St.CreateRun(run); err != nil {
		if errors.Is(err, os.ErrExist) {
			return cli.Failf("run %s already exists", id)
		}
		return cli.Failf("%w", err)
	}
	_, err := fmt.Fprintln(env.Stdout, id)
	return err
}

// checkPIDs refuses a --pid or --pgid that could make a later cancel
// signal every process of the user (-1), the caller's group (0) or init
// (1), and a --pid that names no process.
func checkPIDs(env *cli.Env, opts *Options, set func(string) bool) error {
	for _, f := range []struct {
		name string
		v    int
	}{{"pid", opts.PID}, {"pgid", opts.PGID}} {
		if f.v != 0 && f.v <= 1 || f.v == 0 && set(f.name) {
			return env.UsageError("--%s must be a process id above 1, got %d", f.name, f.v)
		}
	}
	if opts.PID > 1 {
		if _, err := procid.Start(opts.PID); errors.Is(err, procid.ErrNoProcess) {
			return env.UsageError("--pid %d: no such process", opts.PID)
		}
	}
	return nil
}

// startOf is the OS start time recorded beside a pid, so that nothing
// signals the pid once it names another process; nil when unknown (the
// group's leader gone, or a system without start times), which means the
// pid must never be signalled.
func startOf(env *cli.Env, pid int) *uint64 {
	st, err := procid.Start(pid)
	if err != nil {
		env.Log.Info("process start time unknown: nothing will signal it", "pid", pid, "err", err)
		return nil
	}
	return &st
}

// parseSettings reads --setting KEY=VALUE, in order; the values are
// checked as the driver's (runconfig) when they are set.
func parseSettings(kvs []string) ([][2]string, error) {
	var out [][2]string
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--setting %q: want KEY=VALUE", kv)
		}
		if runconfig.ByKey(k) == nil {
			return nil, fmt.Errorf("--setting %q: no such setting", kv)
		}
		out = append(out, [2]string{k, v})
	}
	return out, nil
}

func printJSON(env *cli.Env, v any) error {
	line, err := rec.Marshal(v)
	if err != nil {
		return err
	}
	_, err = env.Stdout.Write(append(line, '\n'))
	return err
}

func failure(err error) error {
	var ee *cli.ExitError
	if errors.As(err, &ee) {
		return err
	}
	return cli.WithCode(exitcode.Failure, err)
}
