package loopexport

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/loopkit/loopkit/internal/cli"
)

// signalled is done on SIGINT, SIGTERM or SIGHUP; its cause names the
// signal, for the exit status of an export it cut short.
func signalled() (context.Context, func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		select {
		case s := <-sigs:
			cancel(stopSignal{s.(syscall.Signal)})
		case <-ctx.Done():
		}
	}()
	return ctx, func() { signal.Stop(sigs); cancel(nil) }
}

type stopSignal struct{ sig syscall.Signal }

func (s stopSignal) Error() string { return unix.SignalName(s.sig) }

// stopped is how a signal ends the export of run id and those after it:
// a follow's usual end (exit 0), else 128+signal and a line saying what
// is left, not Go's "context canceled" with exit 1.
func stopped(ctx context.Context, opts *Options, checkpointed bool, id string) error {
	if opts.Follow {
		return nil
	}
	s, ok := context.Cause(ctx).(stopSignal)
	if !ok {
		s = stopSignal{syscall.SIGINT}
	}
	again := "run it again to send everything"
	if checkpointed {
		again = "the runs sent before it are checkpointed: run it again to send the rest"
	}
	return cli.WithCode(128+int(s.sig), fmt.Errorf("stopped by %s: run %s not sent; %s", s, id, again))
}

// rejectedRuns is the one error for the runs whose spans the collector
// took in part: each named, as they were all attempted.
func rejectedRuns(env *cli.Env, errs []error) error {
	if len(errs) <= 1 {
		if len(errs) == 1 {
			return errs[0]
		}
		return nil
	}
	for _, err := range errs {
		env.Log.Warn(err.Error())
	}
	return cli.Failf("the collector rejected spans of %d runs (above); they are not sent again", len(errs))
}
