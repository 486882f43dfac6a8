// Package procid tells whether a pid is still the process that was
// recorded: a pid alone is not a process, since the kernel reuses them.
// Beside a pid, record Start(pid); before signalling it, check Alive.
package procid

import (
	"errors"
	"fmt"
)

// ErrNoProcess is a pid that names no process (now).
var ErrNoProcess = errors.New("no such process")

// Start is the start time of process pid as the OS keeps it: an opaque
// number, only ever compared with another Start of the same pid on the
// same machine (clock ticks since boot on Linux, microseconds since the
// epoch on macOS). It is never 0 for a process that exists.
func Start(pid int) (uint64, error) {
	if pid <= 0 {
		return 0, fmt.Errorf("pid %d: %w", pid, ErrNoProcess)
	}
	return start(pid)
}

// Alive reports whether pid is still the process whose Start was start:
// false when it is gone, is a zombie, or the pid now names another
// process. This package is loopkit's one liveness check.
func Alive(pid int, start uint64) bool {
	if start == 0 {
		return false
	}
	now, err := Start(pid)
	return err == nil && now == start && !Zombie(pid)
}
