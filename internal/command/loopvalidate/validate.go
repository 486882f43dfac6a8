// Package validate is the loop-validate command: run the validation command
// once, spool its output, and print one validation record.
package loopvalidate

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/gitrun"
	"github.com/loopkit/loopkit/internal/gitstate"
	"github.com/loopkit/loopkit/internal/proc"
	"github.com/loopkit/loopkit/internal/procid"
	"github.com/loopkit/loopkit/internal/procrec"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/settings"
	"github.com/loopkit/loopkit/internal/store"
)

const usage = `[OPTIONS] -- COMMAND [ARGS...]
loop-validate [OPTIONS] --shell 'COMMAND STRING'

Examples:
  $ loop-validate --timeout 5m -- go test ./... | loop-record --run R
  $ loop-validate --shell 'make lint && make test' --tee

Runs the validation command once in --dir, stores its stdout and stderr
byte-exact in the store's spool/, and prints one "validation" record
(NDJSON) for loop-record.

Exit status: the command's own; 124 on timeout, 127 not found, 126 not
executable, 128+n killed by signal n; 2 usage. --exit-zero makes every
outcome 0. A record that stdout refused (a full disk) is 1 and one line,
whatever the command did; a closed pipe (| head) keeps the command's.`

// Options are loop-validate's flags.
type Options struct {
	cli.Common
	Run      string       `long:"run" env:"LOOP_RUN_ID" value-name:"ID" description:"run to hold live (its live.lock) while the command runs" unquote:"false"`
	Dir      string       `long:"dir" value-name:"DIR" description:"directory to run the command in (default: the current directory)" unquote:"false"`
	Shell    string       `long:"shell" value-name:"STRING" description:"run this command string as sh -c does, instead of COMMAND ARGS" unquote:"false"`
	Timeout  cli.Duration `long:"timeout" value-name:"D" default:"10m" config:"verify_timeout_sec" description:"kill the command's process group after D (90s, 5m, or seconds; 0: none)"`
	Deadline int64        `long:"deadline" value-name:"MS" description:"also stop the command at this time (Unix ms; the driver's --max-duration: with --run, counted again from the run's working time)"`
	Grace    cli.Duration `long:"grace" value-name:"D" default:"1s" description:"time between SIGTERM and SIGKILL when stopping the group"`
	Tee      bool         `long:"tee" description:"also stream the command's output live to stderr"`
	NoStore  bool         `long:"no-store" description:"write nothing: keep the output inline in the record only"`
	ExitZero bool         `long:"exit-zero" description:"exit 0 whatever the command did"`
	// The driver's loop-record takes files_changed from the run's trees:
	// a git status here would cost every iteration a git process for nothing.
	NoFilesChanged bool `long:"no-files-changed" description:"leave files_changed out (loop-record computes it from the run's trees)"`
	InlineCap      int  `long:"inline-cap" value-name:"BYTES" default:"1048576" range:"0,67108864" config:"inline_cap_bytes" description:"bytes of each stream's end kept inline in the record"`
}

// Main is loop-validate.
func Main(env *cli.Env) error {
	return cli.Done(run(env))
}

func run(env *cli.Env) error {
	proc.FollowDriver()
	opts := &Options{}
	p := cli.NewParser(env, opts, usage)
	args, err := cli.Parse(env, p, &opts.Common, env.Args)
	if err != nil {
		return err
	}
	switch {
	case opts.Shell != "" && len(args) > 0:
		return env.UsageError("give either --shell or -- COMMAND, not both")
	case opts.Shell == "" && len(args) == 0:
		return env.UsageError("no command: give -- COMMAND [ARGS...] or --shell 'STRING'")
	}
	command := cli.Quote(args)
	if opts.Shell != "" {
		command = opts.Shell
	}
	if opts.Run != "" {
		if err := store.ValidRunID(opts.Run); err != nil {
			return env.UsageError("%v", err)
		}
	}
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return err
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		if gone := store.WorkspaceGone(dir); gone != nil {
			return &cli.ExitError{Code: exitcode.Internal, Err: gone, Hint: "move it back to " + dir}
		}
		return env.UsageError("--dir %s: not a directory", opts.Dir)
	}
	if err := store.SameWorkspace(dir); err != nil {
		return cli.Failf("%w", err)
	}
	st, _, err := settings.Open(env, p, &opts.Common, opts)
	if err != nil {
		return err
	}
	if opts.InlineCap < 0 {
		return env.UsageError("--inline-cap must not be negative")
	}

	spec := proc.Spec{Args: args, Dir: dir, Timeout: opts.Timeout.D(), Grace: opts.Grace.D(), InlineCap: opts.InlineCap, ParentDeath: true}
	// the run's --max-duration comes before the validation's own timeout:
	// the command is cut there, and its record says so
	cutByDeadline := false
	if opts.Deadline > 0 && opts.Run != "" {
		// counted again from the run's working time, which the step just
		// added to: a clock set ahead or a laptop asleep during the step
		// then cuts no validation that the cap has time left for
		if run, err := st.ReadRun(opts.Run); err == nil {
			if at, ok := run.Settings.Deadline(time.Now()); ok {
				opts.Deadline = at.UnixMilli()
			}
		}
	}
	if opts.Deadline > 0 {
		left := max(time.Until(time.UnixMilli(opts.Deadline)), time.Millisecond)
		if spec.Timeout <= 0 || left < spec.Timeout {
			spec.Timeout, cutByDeadline = left, true
		}
	}
	if opts.Tee {
		spec.Tee = env.Stderr
	}
	var outPath, errPath *string
	var group [2]uint64 // the validation's process group as recorded: pid, start
	if !opts.NoStore {
		if err := st.Init(); err != nil {
			return cli.Failf("%w", err)
		}
		base := st.NewSpool("validate")
		o, e := base+".stdout", base+".stderr"
		spec.StdoutPath, spec.StderrPath = o, e
		outPath, errPath = &o, &e
		// The meta goes first (then again with the group), so a kill at any
		// point leaves no spool file a resuming driver cannot attribute.
		meta := store.SpoolMeta{PID: os.Getpid(), Command: command, RunID: opts.Run, StartedAt: time.Now().UnixMilli()}
		meta.PIDStart, _ = procid.Start(meta.PID)
		if err := store.WriteSpoolMeta(base, meta); err != nil {
			return cli.Failf("spool: %w", err)
		}
		spec.OnStart = func(pid int) {
			meta.PGID = pid
			meta.PGIDStart, _ = procid.Start(pid)
			group = [2]uint64{uint64(pid), meta.PGIDStart}
			runDir := ""
			if opts.Run != "" {
				runDir = st.RunDir(opts.Run)
			}
			// a start time unknown: the child is gone already, nothing to stop
			if err := procrec.Add(pid, meta.PGIDStart, procrec.Group, runDir); err != nil && meta.PGIDStart != 0 {
				env.Log.Warn("the validation's process group is not recorded: a cancel will not stop what it leaves", "err", err)
			}
			if err := store.UpdateSpoolMeta(base, meta); err != nil {
				env.Log.Warn("spool meta not written", "err", err)
			}
		}
		if opts.Run != "" && st.RunExists(opts.Run) {
			live, err := st.LockLive(opts.Run)
			if err != nil {
				return cli.Failf("%w", err)
			}
			defer live.Unlock()
		}
	}

	proc.AdoptLeftovers()
	var res *proc.Result
	if opts.Shell != "" {
		res, err = proc.RunShell(spec, opts.Shell)
	} else {
		res, err = proc.Run(spec)
	}
	if group[0] != 0 {
		procrec.Remove(int(group[0]), group[1])
	}
	if n := proc.KillLeftovers(spec.Grace, res.Group()); n > 0 { // what left the group (setsid)
		env.Log.Warn("the validation left processes running outside its group: killed", "count", n)
	}
	if err == nil && res.StartLimited() {
		err = res.Err // the machine's limit: no record of a validation that cannot run (127)
	}
	if err != nil {
		return cli.Failf("%w", err)
	}
	if cut := res.CutByFileSize(); cut != "" {
		env.Log.Warn("the validation: " + cut)
	}
	if res.ForksRefused != "" {
		env.Log.Warn("the validation: " + res.ForksRefused)
	}
	rec := toRecord(res, command, dir, outPath, errPath)
	if !res.TimedOut && res.Signal == "" {
		// a command that never started (no sh to run it, say) has no sh's words
		rec.CannotRun = res.NotFound || cannotRun(res.ExitCode, rec.Stderr, dir)
	}
	if cutByDeadline && res.TimedOut {
		msg := fmt.Sprintf("stopped at the run's --max-duration (after %s)", res.Duration().Round(time.Millisecond))
		rec.Error = &msg
	}
	if opts.NoFilesChanged {
		rec.FilesChanged = nil // null: left to loop-record
	} else if top := store.GitTop(dir); top != "" {
		if opts.Run != "" {
			gitrun.TrustRun(st.RunDir(opts.Run))
		}
		// git can block for good on what the agent left (a FIFO where it
		// reads a .gitignore): the listing gets the validation's timeout
		if d := opts.Timeout.D(); d > 0 {
			defer time.AfterFunc(d, gitrun.Abort).Stop()
		}
		files, err := gitstate.Dirty(top)
		if err != nil {
			env.Log.Warn("files_changed unknown", "err", err)
			rec.FilesChanged = nil // null, not an empty list: nothing is known
		} else {
			rec.FilesChanged = files
		}
	}
	line, err := record.Marshal(rec)
	if err != nil {
		return err
	}
	if _, err := env.Stdout.Write(append(line, '\n')); err != nil {
		return err
	}
	if res.Err != nil {
		env.Log.Warn(res.Err.Error(), "command", command)
	}
	if opts.ExitZero || res.StatusCode == 0 {
		return nil
	}
	return cli.Silent(res.StatusCode)
}

func toRecord(res *proc.Result, command, dir string, outPath, errPath *string) *record.Validation {
	code := res.ExitCode
	rec := &record.Validation{
		Type:            record.TypeValidation,
		Command:         command,
		Dir:             dir,
		ExitCode:        &code,
		Stdout:          record.Text(res.Stdout),
		Stderr:          record.Text(res.Stderr),
		StdoutBytes:     res.StdoutBytes,
		StderrBytes:     res.StderrBytes,
		StdoutTruncated: res.StdoutTrunc,
		StderrTruncated: res.StderrTrunc,
		StdoutFile:      outPath,
		StderrFile:      errPath,
		DurationMs:      res.Duration().Milliseconds(),
		StartedAt:       res.Started.UnixMilli(),
		EndedAt:         res.Ended.UnixMilli(),
		TimedOut:        res.TimedOut,
		FilesChanged:    []string{},
		StrayWriter:     res.StrayWriter,
	}
	if res.Signal != "" {
		rec.Signal = &res.Signal
	}
	if res.Err != nil {
		msg := res.Err.Error()
		rec.Error = &msg
	}
	return rec
}
