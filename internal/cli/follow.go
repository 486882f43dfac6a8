package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/loopkit/loopkit/internal/exitcode"
)

// errReaderGone is why a follower stops when its reader has: a broken
// pipe, which Finish turns into a quiet exit 0 like any other.
var errReaderGone = fmt.Errorf("stdout: %w", syscall.EPIPE)

// Following is the context of a command that follows a run until stopped:
// done on SIGINT or SIGTERM, or once stdout is a pipe or socket nobody
// reads any more (its context.Cause is then a broken pipe). Without the
// second, `loop-view logs -f | grep -m1 x` outlived grep until the next
// iteration came, if one ever did, and the pipeline with it (GNU tail -f
// watches its pipe the same way).
func (e *Env) Following() (context.Context, context.CancelFunc) {
	ctx, cancel, stop := OnSignals(syscall.SIGINT, syscall.SIGTERM)
	if f := e.StdoutFile; f != nil {
		if fi, err := f.Stat(); err == nil && fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0 {
			go watchReader(ctx, f, cancel)
		}
	}
	return ctx, stop
}

// OnSignals is a context done on the first of sigs, its cause naming it
// (StopSignal); cancel ends it for another cause, stop undoes both.
func OnSignals(sigs ...os.Signal) (ctx context.Context, cancel context.CancelCauseFunc, stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	ctx, cancel = context.WithCancelCause(context.Background())
	go func() {
		select {
		case s := <-ch:
			cancel(stoppedBy{s.(syscall.Signal)})
		case <-ctx.Done():
		}
	}()
	return ctx, cancel, func() { cancel(nil); signal.Stop(ch) }
}

// stoppedBy is the cause of a context's end by a signal.
type stoppedBy struct{ sig syscall.Signal }

func (s stoppedBy) Error() string { return "stopped by " + s.sig.String() }

// StopSignal is the signal that ended ctx (OnSignals), if one did.
func StopSignal(ctx context.Context) (syscall.Signal, bool) {
	var s stoppedBy
	if errors.As(context.Cause(ctx), &s) {
		return s.sig, true
	}
	return 0, false
}

// watchReader cancels ctx once f's reader is gone: poll reports POLLERR
// (a pipe) or POLLHUP (a socket) without being asked for anything.
func watchReader(ctx context.Context, f *os.File, cancel context.CancelCauseFunc) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	for ctx.Err() == nil {
		gone := false
		err := rc.Control(func(fd uintptr) {
			p := []unix.PollFd{{Fd: int32(fd)}}
			n, err := unix.Poll(p, 250) // ms: then ctx is looked at again
			gone = err == nil && n > 0 && p[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0
		})
		if err != nil {
			return
		}
		if gone {
			cancel(errReaderGone)
			return
		}
	}
}

// Stopped is the error a follower returns once ctx is done: a broken
// pipe when its reader went away, else the exit status of the signal
// that stopped it (130 for SIGINT, 143 for SIGTERM: kill, timeout(1)).
func Stopped(ctx context.Context) error {
	cause := context.Cause(ctx)
	if IsBrokenPipe(cause) {
		return cause
	}
	if sig, ok := StopSignal(ctx); ok {
		return Silent(128 + int(sig))
	}
	return Silent(exitcode.Interrupt)
}
