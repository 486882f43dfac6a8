package loopdrive

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/deadstep"
	"github.com/loopkit/loopkit/internal/driverargs"
	"github.com/loopkit/loopkit/internal/procid"
	"github.com/loopkit/loopkit/internal/procrec"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runstate"
	"github.com/loopkit/loopkit/internal/store"
)

// driverHeld reports whether a driver holds the run: its lock, or a live
// driver loopkit recorded for it (the agent can remove or replace the lock
// file the driver holds).
func driverHeld(st *store.Store, id string) (bool, error) {
	if len(procrec.Drivers(st.RunDir(id))) > 0 {
		return true, nil
	}
	l, err := store.LockFile(st.RunPath(id, store.DriverLock), true, false)
	if errors.Is(err, store.ErrLocked) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	l.Unlock()
	return false, nil
}

// cancel stops the run's driver (it records the run canceled itself), or,
// with no driver, stops what a crashed one left and marks the run.
func cancel(env *cli.Env, door *runstate.Door, id string) error {
	st := door.Rec.St
	if err := findRun(st, id); err != nil {
		return err
	}
	held, err := driverHeld(st, id)
	if err != nil {
		return cli.Failf("%w", err)
	}
	wait := stopWait // for a driver to record the run canceled
	// run.json's pid is anyone's to write: a driver signalled is one
	// loopkit recorded starting the run, still that process. One that takes
	// the run while this waits (another resume, given the lock the moment
	// the first let it go) is signalled as well.
	signalled := map[int]uint64{}
	stopDrivers := func() {
		for pid, start := range procrec.Drivers(st.RunDir(id)) {
			if s, ok := signalled[pid]; ok && s == start {
				continue
			}
			signalled[pid] = start
			env.Log.Info(fmt.Sprintf("stopping the driver of run %s (pid %d)", id, pid))
			unix.Kill(pid, unix.SIGTERM)
			unix.Kill(pid, unix.SIGCONT) // one stopped (by the agent: SIGSTOP) hears it
		}
	}
	if held {
		stopDrivers()
		if len(signalled) == 0 {
			if err := olderDriver(st, id); err != nil {
				return err
			}
			wait = 3 * time.Second // a holder whose driver died, as lockDriver waits
			env.Log.Warn(fmt.Sprintf("run %s: no driver loopkit recorded starting is alive (run.json names pid %d): nothing signalled", id, driverPID(st, id)))
		}
	}
	merging := mergeWait(env, st, id) // said at once: the wait is long
	l, err := lockStopped(st, id, max(wait, merging), stopDrivers)
	if err != nil && wait < stopWait && len(signalled) > 0 {
		// a driver came while this waited for a dead one's holder
		l, err = lockStopped(st, id, stopWait, stopDrivers)
	}
	if err != nil && len(procrec.Drivers(st.RunDir(id))) == 0 {
		return lockStranger(st, id)
	}
	if err != nil {
		l, err = waitEnding(env, st, id, merging == 0, stopDrivers)
	}
	if err != nil {
		return err
	}
	defer l.Unlock()
	stopLeft(env, st, id)
	run, err := st.ReadRun(id)
	if err != nil {
		return cli.Failf("%w", err)
	}
	if record.Terminal(run.Status) && run.Status != record.RunCanceled {
		return cli.Failf("run %s is already %s: nothing to cancel", id, run.Status)
	}
	if run.Status != record.RunCanceled {
		if _, err := door.Cancel(id, driverargs.Prog()+" cancel"); err != nil {
			return cli.Failf("%w", err)
		}
	}
	_, err = fmt.Fprintln(env.Stdout, record.RunCanceled)
	return err
}

// pause marks a driven run paused; its driver stops after the current step,
// or at once from a rate-limit wait (waitRun looks).
func pause(env *cli.Env, door *runstate.Door, id string) error {
	st := door.Rec.St
	if err := findRun(st, id); err != nil {
		return err
	}
	run, err := st.ReadRun(id)
	if err != nil {
		return cli.Failf("%w", err)
	}
	held, err := driverHeld(st, id)
	if err != nil {
		return cli.Failf("%w", err)
	}
	// a queued run's driver waits for a slot: paused, it leaves the queue
	if (run.Status != record.RunRunning && run.Status != record.RunQueued) || !held {
		state := run.Status
		if run.Status == record.RunRunning || run.Status == record.RunQueued {
			state += " without a driver"
		}
		return cli.Failf("run %s is not running (%s): nothing to pause", id, state)
	}
	if _, err := door.Pause(id, driverargs.Prog()+" pause"); err != nil {
		return cli.Failf("%w", err)
	}
	when := "after its current step (at once if it waits for a rate limit)"
	if run.Status == record.RunQueued {
		when = "within a second, before any step: it waits for a slot"
	}
	env.Log.Info(fmt.Sprintf("run %[1]s: the driver stops %[3]s; '%[2]s resume %[1]s' continues", id, driverargs.Prog(), when))
	_, err = fmt.Fprintln(env.Stdout, record.RunPaused)
	return err
}

// stopLeft kills the process groups a crashed loop-step or loop-validate of
// the run left behind (loopkit's record of them, and the groups their spool
// entries name), keeps what a dead step's agent printed as an interrupted
// attempt of the run (its transcript, tokens and cost), then removes the
// entries whose writer is gone: nothing else will record them. The sweep is the store's one spool
// clean-up; what is the driver's is stopping what the run left.
func stopLeft(env *cli.Env, st *store.Store, id string) {
	// First the groups loopkit recorded starting for the run (outside the
	// workspace): a meta the agent rewrote would hide its group from the
	// sweep, and a group stopped first leaves its output whole.
	for _, pgid := range procrec.Groups(st.RunDir(id)) {
		env.Log.Info(fmt.Sprintf("stopping process group %d left behind by run %s", pgid, id))
		unix.Kill(-pgid, unix.SIGKILL)
		waitGroupGone(pgid, 10*time.Second)
	}
	left := false // an entry not recorded yet: its step may still end
	gone := func(base string, m store.SpoolMeta) bool {
		name := filepath.Base(base) + ".json"
		// The caller holds the run's driver lock: no driver of the run is
		// alive, so any group still named here was left behind.
		if groupLeft(m) {
			// a meta is anyone's to write: the group must be one loopkit
			// recorded starting for this run
			if procrec.Has(m.PGID, m.PGIDStart, procrec.Group, st.RunDir(id)) {
				env.Log.Info(fmt.Sprintf("stopping process group %d left behind by run %s", m.PGID, id))
				unix.Kill(-m.PGID, unix.SIGKILL)
				waitGroupGone(m.PGID, 10*time.Second)
			} else {
				env.Log.Warn(fmt.Sprintf("spool entry %s names process group %d, which loopkit did not start for run %s: not signalled",
					name, m.PGID, id))
			}
		}
		// A loop-step outliving a driver killed alone ends once its agent
		// is gone: wait for it, then its entry is complete. The bound is
		// for a writer that hangs, not for a busy machine (a few seconds
		// at load 30 is normal), and saying so is the only trace of a skip.
		if writerAlive(m) && !waitWriterGone(m, 30*time.Second) {
			env.Log.Warn(fmt.Sprintf("spool entry %s is still being written by pid %d: not recorded now; resume the run again once it has exited",
				name, m.PID))
			left = true
			return false
		}
		return true
	}
	keep := func(base string, m store.SpoolMeta) bool {
		kept := deadstep.Keep(st, env.Log, id, base, m)
		left = left || !kept
		return kept
	}
	if _, err := store.CleanSpool(st, store.SpoolSweep{Now: time.Now(), Run: id, Gone: gone, Keep: keep}); err != nil {
		env.Log.Warn("spool not cleaned", "run", id, "err", err)
		return
	}
	// A step that died leaving nothing to keep still ends in the events
	// (seed 003: every STEP_STARTED has its STEP_FINISHED).
	if !left && st.RunExists(id) {
		if _, err := runstate.Plain(st, env.Log).Rec.FinishOpenSteps(id, 0); err != nil {
			env.Log.Warn("the killed steps' STEP_FINISHED not written", "run", id, "err", err)
		}
	}
}

// writerAlive: the entry's writer is still the process that wrote it (pid
// and start time; a pid alone only when no start time was recorded).
func writerAlive(m store.SpoolMeta) bool {
	if m.PIDStart != 0 {
		return procid.Alive(m.PID, m.PIDStart)
	}
	return m.PID > 0 && procid.Running(m.PID)
}

// groupLeft: the agent's or validation's process group still exists and is
// the one the entry names: its leader is the recorded process, or gone
// (a group outlives its leader, and while it exists its id is never given
// to a new process). A group without a recorded start time is left alone.
func groupLeft(m store.SpoolMeta) bool {
	if m.PGIDStart == 0 || !procid.GroupExists(m.PGID) {
		return false
	}
	now, err := procid.Start(m.PGID)
	return err != nil || now == m.PGIDStart
}

// waitWriterGone waits at most d for the entry's writer to exit.
func waitWriterGone(m store.SpoolMeta, d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !writerAlive(m) {
			return true
		}
	}
	return false
}

// waitGroupGone waits until no process of group pgid is left (a killed
// agent's output is then complete), at most d.
func waitGroupGone(pgid int, d time.Duration) {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !procid.GroupExists(pgid) {
			return
		}
	}
}

// lockStopped takes the run's driver lock within d once no driver loopkit
// recorded for the run is alive (busy is called while one is): a lock
// granted while the driver lives is a lock file the agent replaced.
func lockStopped(st *store.Store, id string, d time.Duration, busy func()) (*store.Lock, error) {
	deadline := time.Now().Add(d)
	for {
		l, err := store.LockFileWithin(st.RunPath(id, store.DriverLock), time.Until(deadline), busy)
		if err != nil {
			return nil, err
		}
		if len(procrec.Drivers(st.RunDir(id))) == 0 {
			return l, nil
		}
		l.Unlock()
		if time.Now().After(deadline) {
			return nil, store.ErrLocked
		}
		busy()
		time.Sleep(50 * time.Millisecond)
	}
}

// findRun: a run the driver is told of that is not there is a usage
// error naming 'loop list'; one that is there but cannot be read says
// why (exit 1), never that it is missing.
func findRun(st *store.Store, id string) error {
	err := st.FindRun(id)
	if errors.Is(err, store.ErrNoSuchRun) {
		return cli.Usagef("no such run: %s (see '%s list')", id, driverargs.Prog())
	}
	if err != nil {
		return cli.Failf("%w", err)
	}
	return nil
}
