package benchrun

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// becomeSubreaper makes the descendants a command orphans (a daemonized
// helper, a background git) this process's children, so their CPU time
// is counted too.
func becomeSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("benchrun: child subreaper: %w", err)
	}
	return nil
}

// reapOrphans waits for every remaining child (orphans reparented here)
// and returns their rusage; it stops waiting when ctx ends.
func reapOrphans(ctx context.Context) []*syscall.Rusage {
	var out []*syscall.Rusage
	for {
		var ws syscall.WaitStatus
		var ru syscall.Rusage
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, &ru)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil: // ECHILD: none left
			return out
		case pid > 0:
			out = append(out, &ru)
			continue
		}
		// children still running: poll until they end or ctx does
		select {
		case <-ctx.Done():
			return out
		case <-time.After(5 * time.Millisecond):
		}
	}
}
