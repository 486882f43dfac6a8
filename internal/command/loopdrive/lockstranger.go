package loopdrive

import (
	"fmt"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/procrec"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/treelock"
	"github.com/loopkit/loopkit/internal/userdir"
)

// lockStranger is the error for a run's driver.lock held while no driver
// loopkit recorded starting the run is alive: another process holds it
// (the agent can leave one holding any file of the store), and only
// stopping that process frees the run; a cancel or a second driver cannot.
func lockStranger(st *store.Store, id string) error {
	if err := olderDriver(st, id); err != nil {
		return err
	}
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

// olderDriver is the refusal of run id while a driver of an older loopkit
// drives it: one that kept its process record in userdir.OlderRuntime (a
// loop started before an upgrade). This version cannot tell it from a
// stranger by its own record, and does not signal on that one's word.
func olderDriver(st *store.Store, id string) error {
	for pid := range procrec.OlderDrivers(st.RunDir(id)) {
		return &cli.ExitError{Code: exitcode.Busy,
			Err: fmt.Errorf("run %s is driven by process %d, a driver of an older loopkit (its record is in %s), "+
				"which this one neither stops nor resumes", id, pid, userdir.OlderRuntime()),
			Hint: fmt.Sprintf("wait for it to end, or stop it with 'kill %d' (it records the run canceled), then try again", pid)}
	}
	return nil
}
