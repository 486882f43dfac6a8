// Package limits names the resource limits (setrlimit) a shell, a CI
// runner or a container puts on loopkit and what it starts, the way a
// user sets them: `ulimit -f` and `ulimit -t` in bash.
package limits

import (
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// FileSize names RLIMIT_FSIZE: past it a write fails with EFBIG, and
// kills a process that does not ignore SIGXFSZ (Go programs ignore it).
// bash counts it in KiB.
func FileSize() string {
	if cur, ok := limit(unix.RLIMIT_FSIZE); ok {
		return fmt.Sprintf("the file size limit (ulimit -f %d KiB)", cur/1024)
	}
	return "the file size limit (ulimit -f)"
}

// CPUTime names RLIMIT_CPU: at its soft value the kernel sends SIGXCPU,
// at its hard value SIGKILL. bash counts it in seconds.
func CPUTime() string {
	if cur, ok := limit(unix.RLIMIT_CPU); ok {
		return fmt.Sprintf("its CPU time limit (ulimit -t %d s)", cur)
	}
	return "its CPU time limit (ulimit -t)"
}

// limit is this process's soft limit, which its children start with;
// false when unlimited or unknown.
func limit(resource int) (uint64, bool) {
	var l unix.Rlimit
	if unix.Getrlimit(resource, &l) != nil || l.Cur == unix.RLIM_INFINITY {
		return 0, false
	}
	return l.Cur, true
}

// Killed says why a process died of sig, with the fix, when a limit's
// signal killed it; "" for any other signal.
func Killed(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGXFSZ:
		return "it wrote past " + FileSize() + ": raise it (ulimit -f unlimited)"
	case syscall.SIGXCPU:
		return "it used up " + CPUTime() + ": raise it (ulimit -t unlimited)"
	}
	return ""
}
