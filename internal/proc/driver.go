package proc

import (
	"os"
	"strconv"
)

// DriverEnv names the driver (scripts/loop, by its pid) to the loop-*
// commands it starts: should it die without stopping them (SIGKILL), they
// stop as on SIGTERM, their agent or validation with them, instead of
// running on unsupervised.
const DriverEnv = "LOOPKIT_DRIVER_PID"

// FollowDriver makes this process get SIGTERM when the driver that
// started it dies. A command the driver did not start (the variable
// unset, or naming another process than its parent: an agent's own
// commands) is left alone.
func FollowDriver() {
	pid, err := strconv.Atoi(os.Getenv(DriverEnv))
	if err != nil || pid <= 1 || os.Getppid() != pid {
		return
	}
	followParent(pid)
}
