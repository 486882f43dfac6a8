package looprecord

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/lazyre"
	rec "github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runstate"
	"github.com/loopkit/loopkit/internal/view"
	"golang.org/x/sys/unix"
)

// Recording an iteration or an attempt, and the summary line it prints.

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
// 128+n when signal n killed it (as loop-validate exits, so a pipeline's
// status still says "killed"), 1 when it did not run.
func exitStatus(it *rec.IterationLog) int {
	switch {
	case it.TimedOut:
		return exitcode.Timeout
	case it.Signal != nil && unix.SignalNum(*it.Signal) > 0:
		return 128 + int(unix.SignalNum(*it.Signal))
	case it.ExitCode < 0:
		return exitcode.Failure
	}
	return it.ExitCode
}
