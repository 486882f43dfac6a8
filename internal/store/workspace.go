package store

import (
	"fmt"
	"os"
)

// DirIDEnv names the workspace the driver's run started in, for the
// commands it starts: "DEV:INODE" of the run's dir then (see ID).
const DirIDEnv = "LOOPKIT_DIR_ID"

// SameWorkspace refuses dir, the workspace a driver's command was given,
// when it no longer names the folder the run started in ($LOOPKIT_DIR_ID):
// the agent moved the workspace aside and put a link to a folder of its
// own in its place, where the validation would pass on the agent's files
// and the person's repository would never be checked.
func SameWorkspace(dir string) error {
	if !sameID(dir, DirIDEnv) {
		return fmt.Errorf("workspace %s is not the folder the run started in (removed and made again, moved, or a link put in its place): nothing is run there", dir)
	}
	return nil
}

// WorkspaceGone is the error of a driver's command whose workspace dir is
// not there (nil for a command no driver started): the person moved or
// removed it while the run went on, which a usage error misnamed.
func WorkspaceGone(dir string) error {
	if os.Getenv(DirIDEnv) == "" {
		return nil
	}
	return fmt.Errorf("workspace %s is gone (moved or removed during the run): nothing is run there", dir)
}
