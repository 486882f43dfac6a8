package proc

import (
	"os/exec"
	"syscall"
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
