package loopdrive

import (
	"bytes"
	"errors"
	"fmt"
	"os/signal"
	"syscall"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/gitstore"
	"github.com/loopkit/loopkit/internal/nextaction"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runstate"
	"github.com/loopkit/loopkit/internal/view"
)

// recordNext is --record, the driver's one call after a validation (each
// Go process costs milliseconds of every iteration): it records iteration
// opts.Iteration from the step and validation records on stdin, as
// `loop-record --iteration N` does, prints its line of `loop-view logs` as
// summary=..., then the next action as --next does. The driver prints the
// summary itself, so that a closed stdout is a SIGPIPE to the driver.
func recordNext(env *cli.Env, door *runstate.Door, opts *Options) error {
	st := door.Rec.St
	// A Ctrl-C or a closed terminal reaches the driver's whole process
	// group: cut here, a finished iteration would be lost. The driver
	// cancels the run once this returns.
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGQUIT)
	in, err := record.ReadInput(env.Stdin)
	var ie *record.InputError
	if errors.As(err, &ie) {
		return cli.BadInput(fmt.Errorf("stdin %w", err))
	}
	if err != nil {
		return cli.Failf("read stdin: %w", err)
	}
	res, err := door.RecordIteration(opts.Run, in, opts.Iteration)
	if errors.As(err, &ie) {
		return cli.BadInput(fmt.Errorf("stdin %w", err))
	}
	if err != nil {
		return cli.Failf("record iteration %d of run %s: %w", opts.Iteration, opts.Run, err)
	}
	var line bytes.Buffer
	if err := (&view.Logs{W: &line}).Write(&view.Record{Raw: res.Line}); err != nil {
		return cli.Failf("%w", err)
	}
	if _, err := fmt.Fprintf(env.Stdout, "summary=%s\n", bytes.TrimRight(line.Bytes(), "\n")); err != nil {
		return err
	}
	a, err := decideAfter(env, st, opts.Run, nil, res.Run)
	if err != nil {
		return err
	}
	// The next step starts from the tree just recorded (loop-step --base):
	// since it was taken only the driver ran, and a snapshot of the same
	// work tree would cost the step three git processes.
	if a.Kind == nextaction.Iterate && !res.Repeat {
		if repo, err := gitstore.Open(st.RunDir(opts.Run)); err == nil {
			if id, err := repo.Commit(res.Log.Iteration); err == nil {
				extra := map[string]string{"base": id}
				for k, v := range a.Extra {
					extra[k] = v
				}
				a.Extra = extra
			}
		}
	}
	return a.Write(env.Stdout)
}

// attemptNext is --attempt: a step that could not work (not logged in, no
// program) is kept as an attempt, paid for but no iteration, and no
// validation runs after it; the next action, printed as --next prints it,
// is the stop that fails the run.
func attemptNext(env *cli.Env, door *runstate.Door, id string) error {
	st := door.Rec.St
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGQUIT) // as --record
	in, err := record.ReadInput(env.Stdin)
	var ie *record.InputError
	if errors.As(err, &ie) {
		return cli.BadInput(fmt.Errorf("stdin %w", err))
	}
	if err != nil {
		return cli.Failf("read stdin: %w", err)
	}
	if in.Step == nil || in.Validation != nil {
		return cli.BadInput(fmt.Errorf("stdin: --attempt takes one step record"))
	}
	if _, err := door.RecordAttempt(id, in, record.AttemptCannotWork); errors.As(err, &ie) {
		return cli.BadInput(fmt.Errorf("stdin %w", err))
	} else if err != nil {
		return cli.Failf("record the attempt of run %s: %w", id, err)
	}
	s := in.Step
	a, err := decideAfter(env, st, id, &record.Agent{ExitCode: s.ExitCode, Error: s.Error, ErrorKind: s.ErrorKind}, nil)
	if err != nil {
		return err
	}
	return a.Write(env.Stdout)
}
