package proc

import (
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// useWatcher makes Linux use the other systems' watcher (for its tests).
var useWatcher bool

// setParentDeath makes the kernel SIGKILL the child when this process dies.
func setParentDeath(cmd *exec.Cmd) error {
	if useWatcher {
		return underWatcher(cmd)
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	return nil
}

// followParent asks the kernel for SIGTERM when the parent dies.
func followParent(pid int) {
	unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0, 0, 0)
	if os.Getppid() != pid { // it died before the request took hold
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
	}
}
