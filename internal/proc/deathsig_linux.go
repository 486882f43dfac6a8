package proc

import "syscall"

// setParentDeath has the kernel SIGKILL the child when our thread dies.
func setParentDeath(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
