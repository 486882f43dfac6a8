// Package looprecord is the loop-record command: runs written by hand or
// by CI, one record at a time, through the one door (internal/runstate).
package looprecord

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/exitcode"
	rec "github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/runstate"
	"github.com/loopkit/loopkit/internal/settings"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/trust"
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
the recorded validation's exit code (124 when it timed out, 128+n when
signal n killed it, 1 when it could not run): whatever it is, the record
was stored. A stored record whose IterationLog stdout refused (a full
disk) is 1 and one line naming stdout: do not record it again.`

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
	st, cwd, err := settings.OpenChecked(env, p, &opts.Common, opts, trust.Retention)
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
