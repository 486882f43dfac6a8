//go:build !linux

package proc

import "syscall"

// setParentDeath: only Linux has a parent-death signal; elsewhere a child
// outlives a SIGKILLed loopkit until its own group is stopped.
func setParentDeath(*syscall.SysProcAttr) {}
