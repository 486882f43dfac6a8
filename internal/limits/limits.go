// Package limits names the resource limits (setrlimit) a shell, a CI
// runner or a container puts on loopkit and what it starts, the way a
// user sets them: `ulimit -f` and `ulimit -t` in bash.
package limits

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

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
	cur, _, ok := limits(resource)
	return cur, ok && cur != infinity
}

// infinity is RLIM_INFINITY, as limits gives it.
const infinity = uint64(unix.RLIM_INFINITY)

// limits is resource's soft and hard limits: unix.Rlimit's fields are
// uint64 on Linux and macOS, int64 on the BSDs.
func limits(resource int) (cur, max uint64, ok bool) {
	var l unix.Rlimit
	if unix.Getrlimit(resource, &l) != nil {
		return 0, 0, false
	}
	return uint64(l.Cur), uint64(l.Max), true
}

// AtFileSize says whether a file of n bytes stopped at the file size
// limit: a writer that ignores SIGXFSZ (a Go program) gets EFBIG there
// and goes on, its output cut without a word.
func AtFileSize(n int64) bool {
	cur, ok := limit(unix.RLIMIT_FSIZE)
	return ok && n > 0 && uint64(n) >= cur
}

// killed says why a process died of sig, with the fix, when a limit's
// signal killed it; "" for any other signal.
func killed(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGXFSZ:
		return "it wrote past " + FileSize() + ": raise it (ulimit -f unlimited)"
	case syscall.SIGXCPU:
		return "it used up " + CPUTime() + ": raise it (ulimit -t unlimited)"
	}
	return ""
}

// Why says why a process died of sig, with the fix, when a limit's
// signal killed it (SIGXFSZ, SIGXCPU); "" for any other. SIGKILL, which
// no process can catch, is a limit's when the process's CPU time (its
// rusage) reached the hard CPU limit, or when the kernel's count of
// out-of-memory kills grew since oomBefore (OOMKills as it started).
func Why(sig syscall.Signal, cpu time.Duration, oomBefore int64) string {
	if sig != syscall.SIGKILL {
		return killed(sig)
	}
	// bash's `ulimit -t N` sets the soft and hard limits alike: at the
	// hard one the kernel sends SIGKILL, not SIGXCPU. The rusage it then
	// reports can be short of the limit (by 15% on a VM), never far.
	if _, hard, ok := limits(unix.RLIMIT_CPU); ok && hard < 1<<40 && uint64(cpu/time.Millisecond) >= hard*750 {
		return fmt.Sprintf("it reached its CPU time limit (ulimit -t %d s): raise it (ulimit -t unlimited)", hard)
	}
	if oomBefore >= 0 && OOMKills() > oomBefore {
		return "the kernel's out-of-memory killer ended a process meanwhile, likely this one: give it more memory (the container's or cgroup's memory.max)"
	}
	return ""
}

// Where the kernel counts its out-of-memory kills (a test's files instead).
var (
	procCgroup = "/proc/self/cgroup"
	cgroupRoot = "/sys/fs/cgroup"
	vmstat     = "/proc/vmstat"
)

// OOMKills is how many processes the kernel's out-of-memory killer has
// ended: in this process's cgroup (v2 memory.events, whichever limit it
// met: the container's memory.max, say), else on the whole machine
// (/proc/vmstat); -1 when unknown.
func OOMKills() int64 {
	if b, err := os.ReadFile(procCgroup); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if path, ok := strings.CutPrefix(line, "0::/"); ok {
				if n := counter(filepath.Join(cgroupRoot, path, "memory.events"), "oom_kill"); n >= 0 {
					return n
				}
			}
		}
	}
	return counter(vmstat, "oom_kill")
}

// counter is the number after key at the start of a line of file path;
// -1 when there is none.
func counter(path, key string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return -1
	}
	_, after, ok := bytes.Cut(append([]byte("\n"), b...), []byte("\n"+key+" "))
	if !ok {
		return -1
	}
	f := bytes.Fields(after)
	if len(f) == 0 {
		return -1
	}
	n, err := strconv.ParseInt(string(f[0]), 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// Hint is what to do when err says a limit stopped loopkit itself: no
// file could be opened (EMFILE, ENFILE), no process started (fork's
// EAGAIN, ENOMEM); "" for any other error.
func Hint(err error) string {
	var pe *fs.PathError
	forked := errors.As(err, &pe) && pe.Op == "fork/exec"
	switch {
	case errors.Is(err, syscall.EMFILE):
		if cur, ok := limit(unix.RLIMIT_NOFILE); ok {
			return fmt.Sprintf("the open file limit (ulimit -n %d) is reached: raise it (ulimit -n 1024, or more)", cur)
		}
		return "the open file limit (ulimit -n) is reached: raise it"
	case errors.Is(err, syscall.ENFILE):
		return "the system's open file table is full: close files, or raise fs.file-max"
	case forked && errors.Is(err, syscall.EAGAIN):
		if cur, ok := limit(unix.RLIMIT_NPROC); ok {
			return fmt.Sprintf("no process could be started: the process limit (ulimit -u %d, or the container's pids.max) is reached: end stray processes, or raise it", cur)
		}
		return "no process could be started: the process limit (ulimit -u, or the container's pids.max) is reached: end stray processes, or raise it"
	case forked && errors.Is(err, syscall.ENOMEM):
		return "no process could be started: memory is short (ulimit -v, or the container's memory.max): raise the limit"
	}
	return ""
}
