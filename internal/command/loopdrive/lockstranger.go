package loopdrive

import (
	"fmt"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/treelock"
)

// lockStranger is the error for a run's driver.lock held while no driver
// loopkit recorded starting the run is alive: another process holds it
// (the agent can leave one holding any file of the store), and only
// stopping that process frees the run; a cancel or a second driver cannot.
func lockStranger(st *store.Store, id string) error {
	path := st.RunPath(id, store.DriverLock)
	who := "a process"
	if pid := treelock.FlockHolder(path); pid > 0 {
		who = fmt.Sprintf("process %d", pid)
	}
	return &cli.ExitError{Code: exitcode.Busy,
		Err: fmt.Errorf("run %s: its driver.lock is held by %s, which is no driver loopkit started for it "+
			"(the agent can leave one holding it)", id, who),
		Hint: fmt.Sprintf("find it with 'fuser %s', stop it, then try again", path)}
}
