package proc

import (
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/loopkit/loopkit/internal/procid"
)

// AdoptLeftovers makes this process the one every process its commands
// leave behind is given to when its parent dies (a child subreaper): a
// daemon the agent started (setsid, a double fork) leaves the group Run
// kills, and would outlive the step to act after it (edit the work tree
// once the validation passed, hold a lock of the run's).
func AdoptLeftovers() {
	if unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == nil {
		adopted.Store(true)
	}
}

var adopted atomic.Bool

func adopting() bool { return adopted.Load() }

// reapOrphans reaps the adopted leftovers that have exited, while the
// command (pid keep, which its Wait reaps) runs: each stayed a zombie
// until the step ended, and an agent whose commands leave background
// children (cmd &, a shell that exits first) used up a container's
// pids.max with them. Only a child of another session is one: what this
// process starts itself, but the command, stays in its own.
func reapOrphans(keep int) {
	var info unix.Siginfo // no child has exited: /proc is not read (hasChildren says why)
	if err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil); err != nil || info.Signo == 0 {
		return
	}
	sid, err := unix.Getsid(0)
	if err != nil {
		return
	}
	for _, pid := range children() {
		if pid == keep {
			continue
		}
		if state, session, ok := procid.State(pid); ok && state == 'Z' && session != sid {
			var ws unix.WaitStatus
			unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		}
	}
}

// KillLeftovers kills (SIGKILL, with their groups) the children of this
// process, until none is left or grace has passed: after AdoptLeftovers,
// once nothing of its own runs, they are what its commands left. Each
// killed child is reaped, so what it left comes here in turn. It returns
// how many it killed that had left group, the command's process group:
// one of the group that Run stopped comes here too when its parent died
// first, and left nothing.
func KillLeftovers(grace time.Duration, group int) int {
	n := 0
	if grace <= 0 {
		grace = time.Second
	}
	if !hasChildren() {
		return 0
	}
	for deadline := time.Now().Add(grace); time.Now().Before(deadline); {
		kids := children()
		if len(kids) == 0 {
			return n
		}
		left := map[int]bool{}
		for _, pid := range kids {
			pg, err := unix.Getpgid(pid)
			left[pid] = err != nil || pg != group
			unix.Kill(-pid, unix.SIGKILL) // the group it leads, if any
			unix.Kill(pid, unix.SIGKILL)
		}
		for _, pid := range kids { // a process stuck in the kernel is not waited for past grace
			for time.Now().Before(deadline) {
				var ws unix.WaitStatus
				if got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil); got != 0 || err != nil {
					if left[pid] {
						n++
					}
					break
				}
				time.Sleep(time.Millisecond)
			}
		}
	}
	return n
}

// hasChildren tells whether this process has a child, running or not yet
// reaped (waitid with WNOWAIT reaps none), without reading /proc: the
// /proc/self/task entries children reads cost its parent about 1 ms of
// CPU when it reaps this process (the kernel walks them), every step.
func hasChildren() bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		return err != unix.ECHILD
	}
}

// children are this process's children, from every thread's list.
func children() []int {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 1 {
				out = append(out, pid)
			}
		}
	}
	return out
}
