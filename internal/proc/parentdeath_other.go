//go:build !linux

package proc

import (
	"os"
	"os/exec"
	"syscall"
	"time"
)

// setParentDeath: without Linux's Pdeathsig, the child runs under a watcher
// (see parentwatch.go) that kills the group once this process is gone.
func setParentDeath(cmd *exec.Cmd) error {
	return underWatcher(cmd)
}

// followParent: no parent-death signal here; a goroutine looks at the
// parent as the watcher does, and sends this process SIGTERM once it is
// gone.
func followParent(pid int) {
	go func() {
		for os.Getppid() == pid {
			time.Sleep(watchInterval)
		}
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
	}()
}
