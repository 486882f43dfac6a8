package loopdrive

import (
	"fmt"
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/driverargs"
	"github.com/loopkit/loopkit/internal/procrec"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/recorder"
	"github.com/loopkit/loopkit/internal/store"
)

// stopWait is how long cancel waits for a signalled driver to record the
// run canceled and let its lock go.
var stopWait = 15 * time.Second

// mergeWait says, when the run's driver is merging, that cancel waits for
// the merge, and returns how long: up to the run's git limit. The driver
// defers signals there by design: a merge cut in half would leave the
// person's checkout mid-merge. 0: no merge.
func mergeWait(env *cli.Env, st *store.Store, id string) time.Duration {
	run, err := st.ReadRun(id)
	if err != nil || run.Status != record.RunRunning || run.Merge == nil || run.Merge.Status != record.MergeStarted {
		return 0
	}
	env.Log.Info(fmt.Sprintf("run %s: its driver is merging %s into %s, which no signal cuts short: "+
		"the run is canceled once the merge is done", id, run.Merge.RunBranch, run.Merge.Target))
	return max(recorder.GitLimit(&run.Settings), stopWait)
}

// waitEnding is cancel's word on a driver still alive after its wait: a
// merge begun meanwhile is waited for (again is false: not twice); the
// end of a run already over (its on_event hooks, the clean, when signals
// are ignored so that the end is recorded whole) has nothing left to
// cancel. Telling the person to kill the driver there would do the harm
// the deferring avoids.
func waitEnding(env *cli.Env, st *store.Store, id string, again bool, busy func()) (*store.Lock, error) {
	if again {
		if d := mergeWait(env, st, id); d > 0 {
			if l, err := lockStopped(st, id, d, busy); err == nil {
				return l, nil
			}
		}
	}
	run, err := st.ReadRun(id)
	if err == nil && record.Terminal(run.Status) && run.Status != record.RunCanceled {
		return nil, cli.Failf("run %s is already %s: nothing to cancel (its driver, pid %d, is still ending it: "+
			"its on_event hooks, the clean at its end; it exits by itself)", id, run.Status, firstDriver(st, id))
	}
	return nil, cli.Failf("run %s: its driver did not stop (stop its '%s run' yourself, then cancel again): %w",
		id, driverargs.Prog(), store.ErrLocked)
}

// firstDriver is the pid of a live driver loopkit recorded for the run (0: none).
func firstDriver(st *store.Store, id string) int {
	for pid := range procrec.Drivers(st.RunDir(id)) {
		return pid
	}
	return 0
}
