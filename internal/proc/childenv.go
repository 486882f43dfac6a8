package proc

import (
	"os"
	"slices"
	"strings"
)

// UnsetEnv names, in the driver's environment, what the driver set for
// loopkit's own commands that its caller had not (LOOP_STORE, LOOP_CONFIG).
const UnsetEnv = "LOOPKIT_UNSET"

// driverOnly are the variables the driver sets for loopkit's own commands
// alone: its pid, the store's and workspace's ids, the run's config copy,
// its error file.
var driverOnly = []string{DriverEnv, UnsetEnv, "LOOP_PROG", "LOOPKIT_STORE_ID", "LOOPKIT_DIR_ID", "LOOPKIT_RUN_CONFIG",
	"LOOPKIT_ERROR_FILE", "LOOPKIT_DRIVE_REQUESTS"}

// ChildEnv is this process's environment for what it runs on the person's
// behalf (the agent, the validation, a hook), without what the driver set
// for loopkit's own commands: a loop the agent or the validation starts,
// in another repository, gets a store of its own, not this run's (it
// recorded into the outer run's store and read its config). What the
// caller set itself, LOOP_STORE included, stays.
func ChildEnv() []string {
	drop := slices.Clone(driverOnly)
	for _, k := range strings.Fields(os.Getenv(UnsetEnv)) {
		if k == "LOOP_STORE" || k == "LOOP_CONFIG" {
			drop = append(drop, k)
		}
	}
	return slices.DeleteFunc(os.Environ(), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return slices.Contains(drop, k)
	})
}
