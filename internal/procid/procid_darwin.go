package procid

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// start asks the kernel for the process's kinfo_proc (sysctl
// kern.proc.pid.PID) and returns p_starttime in microseconds.
func start(pid int) (uint64, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if errors.Is(err, unix.ESRCH) {
		return 0, fmt.Errorf("pid %d: %w", pid, ErrNoProcess)
	}
	if err != nil {
		return 0, err
	}
	// An absent pid gives an empty record rather than an error.
	if kp.Proc.P_pid != int32(pid) {
		return 0, fmt.Errorf("pid %d: %w", pid, ErrNoProcess)
	}
	t := kp.Proc.P_starttime
	return uint64(t.Sec)*1_000_000 + uint64(t.Usec) + 1, nil
}
