package loopdrive

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/deadstep"
	"github.com/loopkit/loopkit/internal/driverargs"
	"github.com/loopkit/loopkit/internal/procid"
	"github.com/loopkit/loopkit/internal/procrec"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runstate"
	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/store"
)

// driverHeld reports whether a driver holds the run.
func driverHeld(st *store.Store, id string) (bool, error) {
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
	if !st.RunExists(id) {
		return cli.Failf("no such run: %s", id)
	}
	held, err := driverHeld(st, id)
	if err != nil {
		return cli.Failf("%w", err)
	}
	if held {
		// run.json's pid is anyone's to write: the driver signalled is the
		// one loopkit recorded starting the run, still that process
		drivers := procrec.Drivers(st.RunDir(id))
		for pid, start := range drivers {
			env.Log.Info(fmt.Sprintf("stopping the driver of run %s (pid %d)", id, pid))
			if procid.Alive(pid, start) {
				unix.Kill(pid, unix.SIGTERM)
			}
		}
		if len(drivers) == 0 {
			env.Log.Warn(fmt.Sprintf("run %s: no driver loopkit recorded starting is alive (run.json names pid %d): nothing signalled", id, driverPID(st, id)))
		}
	}
	l, err := waitLock(st.RunPath(id, store.DriverLock), 15*time.Second)
	if err != nil {
		return cli.Failf("run %s: its driver did not stop (stop its 'loop run' yourself, then cancel again): %w", id, err)
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

// pause marks a driven run paused; its driver stops after the current step.
func pause(env *cli.Env, door *runstate.Door, id string) error {
	st := door.Rec.St
	if !st.RunExists(id) {
		return cli.Failf("no such run: %s", id)
	}
	run, err := st.ReadRun(id)
	if err != nil {
		return cli.Failf("%w", err)
	}
	held, err := driverHeld(st, id)
	if err != nil {
		return cli.Failf("%w", err)
	}
	if run.Status != record.RunRunning || !held {
		state := run.Status
		if run.Status == record.RunRunning {
			state = "running without a driver"
		}
		return cli.Failf("run %s is not running (%s): nothing to pause", id, state)
	}
	if _, err := door.Pause(id, driverargs.Prog()+" pause"); err != nil {
		return cli.Failf("%w", err)
	}
	env.Log.Info(fmt.Sprintf("run %[1]s: the driver stops after its current step; '%[2]s resume %[1]s' continues", id, driverargs.Prog()))
	_, err = fmt.Fprintln(env.Stdout, record.RunPaused)
	return err
}

// waitLock takes a lock, trying every 50 ms until timeout.
func waitLock(path string, timeout time.Duration) (*store.Lock, error) {
	deadline := time.Now().Add(timeout)
	for {
		l, err := store.LockFile(path, true, false)
		if err == nil || !errors.Is(err, store.ErrLocked) || time.Now().After(deadline) {
			return l, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stopLeft kills the process groups a crashed loop-step or loop-validate of
// the run left behind (their spool entries name the group), keeps what a
// dead step's agent printed as an interrupted attempt of the run (its
// transcript, tokens and cost), then removes the entries whose writer is
// gone: nothing else will record them.
func stopLeft(env *cli.Env, st *store.Store, id string) {
	metas, _ := filepath.Glob(filepath.Join(st.SpoolDir(), "*.json"))
	for _, f := range metas {
		e, ok := store.ParseSpoolName(filepath.Base(f))
		if !ok || strings.HasPrefix(filepath.Base(f), ".") {
			continue
		}
		data, err := safefile.ReadFile(f, 1<<20) // a planted FIFO must not hang a cancel
		if err != nil {
			continue
		}
		var m store.SpoolMeta
		// the entry is the run's, and the meta its writer's own (the
		// name carries the writer's pid)
		if json.Unmarshal(data, &m) != nil || m.RunID != id || m.PID != e.PID {
			continue
		}
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
					filepath.Base(f), m.PGID, id))
			}
		}
		// A loop-step outliving a driver killed alone ends once its agent
		// is gone: wait for it, then its entry is complete. The bound is
		// for a writer that hangs, not for a busy machine (a few seconds
		// at load 30 is normal), and saying so is the only trace of a skip.
		if writerAlive(m) && !waitWriterGone(m, 30*time.Second) {
			env.Log.Warn(fmt.Sprintf("spool entry %s is still being written by pid %d: not recorded now; resume the run again once it has exited",
				filepath.Base(f), m.PID))
			continue
		}
		base := strings.TrimSuffix(f, ".json")
		if strings.HasSuffix(base, ".step") && !keepStep(env, st, id, base, m) {
			continue // left for loop-clean: what it holds was not recorded
		}
		left, _ := filepath.Glob(base + ".*")
		for _, p := range left {
			os.RemoveAll(p) // streams, and a step's base objects (a directory)
		}
	}
	// entries whose writer died before writing their meta (a step killed
	// while it snapshotted the tree): no meta names their run, and with
	// their writer gone nothing will record them
	entries, _ := os.ReadDir(st.SpoolDir())
	for _, de := range entries {
		e, ok := store.ParseSpoolName(de.Name())
		if !ok || strings.HasPrefix(de.Name(), ".") || procid.Running(e.PID) {
			continue
		}
		if _, err := os.Lstat(filepath.Join(st.SpoolDir(), e.Base+".json")); err == nil {
			continue
		}
		os.RemoveAll(filepath.Join(st.SpoolDir(), de.Name()))
	}
	// temporary files of a spool meta whose writer was killed mid-rename
	tmps, _ := filepath.Glob(filepath.Join(st.SpoolDir(), ".*.tmp-*"))
	for _, f := range tmps {
		parts := strings.Split(filepath.Base(f), "-")
		if len(parts) < 2 {
			continue
		}
		if pid, err := strconv.Atoi(parts[1]); err == nil && pid > 0 && !procid.Running(pid) {
			os.Remove(f)
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

// keepStep records a dead step's spool entry as an interrupted attempt of
// run id (deadstep.Keep), and reports whether the entry may now go.
func keepStep(env *cli.Env, st *store.Store, id, base string, m store.SpoolMeta) bool {
	return deadstep.Keep(st, env.Log, id, base, m)
}
