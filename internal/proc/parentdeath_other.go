//go:build !linux

package proc

import "os/exec"

// setParentDeath: without Linux's Pdeathsig, the child runs under a watcher
// (see parentwatch.go) that kills the group once this process is gone.
func setParentDeath(cmd *exec.Cmd) error {
	return underWatcher(cmd)
}
