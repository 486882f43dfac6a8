package loopexport

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/otelexport"
)

// signalName is a stopping signal's name (not unix.SignalName: its table
// is 1.4 KB of a tight binary).
func signalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return "SIGINT"
}

// stopped is how a signal ends the export of run id and those after it:
// a follow's usual end (exit 0), else 128+signal and a line saying what
// is left, not Go's "context canceled" with exit 1.
func stopped(ctx context.Context, opts *Options, checkpointed bool, id string) error {
	if opts.Follow {
		return nil
	}
	sig, ok := cli.StopSignal(ctx)
	if !ok {
		sig = syscall.SIGINT
	}
	again := "run it again to send everything"
	if checkpointed {
		again = "what was sent is checkpointed: run it again to send the rest"
	}
	return cli.WithCode(128+int(sig), fmt.Errorf("stopped by %s before run %s was sent whole; %s", signalName(sig), id, again))
}

// runFault: the error is one run's own (its records, or spans the
// collector refused or rejected as they are); it stopped the export of
// every run after it, on every try.
func runFault(err error) bool {
	var rejected *otelexport.Rejected
	var fault *otelexport.RunFault
	return errors.As(err, &rejected) || errors.As(err, &fault)
}

// runFaults is the one error for the runs that failed on their own, once
// the others were sent: each named.
func runFaults(env *cli.Env, errs []error) error {
	if len(errs) <= 1 {
		if len(errs) == 1 {
			return errs[0]
		}
		return nil
	}
	for _, err := range errs {
		env.Log.Warn(err.Error())
	}
	return cli.Failf("%d runs not sent, or not all taken (above); the others were", len(errs))
}
