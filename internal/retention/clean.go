package retention

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/loopkit/loopkit/internal/artifacts"
	"github.com/loopkit/loopkit/internal/lazylog"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/treelock"
)

// CleanLock is the store-wide lock file that keeps two cleans from deleting
// at once (a dry run takes none).
const CleanLock = "clean.lock"

// Options say how Clean runs.
type Options struct {
	Policy Policy
	DryRun bool
	// Bytes measures every run, not only the deleted ones.
	Bytes bool
	// Wait waits for another clean to finish; WaitFor waits at most that
	// long; otherwise (or after WaitFor) Clean skips.
	Wait    bool
	WaitFor time.Duration
	Now     time.Time
	Log     lazylog.Logger
	// KeepStep records what a dead step's spool entry holds before the
	// spool sweep removes it (see store.CleanSpool); nil records nothing.
	KeepStep func(base string, m store.SpoolMeta) bool
}

// Report is what a clean did.
type Report struct {
	Kept, Deleted, Exempt, Failed int
	Freed                         int64 // bytes of deleted runs and tombstones
	Tombstones                    int   // left by a killed clean, finished now
	TreeLocks                     int   // trees/ locks of runs that are gone
	Spool                         store.SpoolResult
	// Skipped is set when another clean held the lock and Wait was false.
	Skipped bool
}

// Clean finishes leftover tombstones, decides every run, deletes what the
// policy says (unless DryRun) and sweeps the spool. emit gets each decision,
// in run id order, once it has been carried out; an emit error (a closed
// stdout) stops the output but not the clean, and is returned at the end.
func Clean(st *store.Store, o Options, emit func(Decision) error) (Report, error) {
	var rep Report
	if _, err := os.Stat(st.Root); errors.Is(err, fs.ErrNotExist) {
		return rep, nil // no store: nothing to clean, and readers create nothing
	}
	if !o.DryRun {
		path := filepath.Join(st.Root, CleanLock)
		var l *store.Lock
		var err error
		if o.WaitFor > 0 && !o.Wait {
			l, err = store.LockFileWithin(path, o.WaitFor, cleanBusy)
		} else {
			l, err = store.LockFile(path, true, o.Wait)
		}
		if errors.Is(err, store.ErrLocked) {
			rep.Skipped = true
			return rep, nil
		}
		if err != nil {
			return rep, err
		}
		defer l.Unlock()
	}
	if _, err := os.Stat(st.RunsDir()); err == nil {
		if err := cleanRuns(st, o, emit, &rep); err != nil {
			return rep, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return rep, err
	}
	if !o.DryRun {
		// after the runs: the locks of the trees of the runs just removed go too
		rep.TreeLocks = treelock.SweepStore(st)
		if rep.TreeLocks > 0 {
			o.Log.Debug("removed the work tree locks of runs that are gone", "count", rep.TreeLocks)
		}
	}
	sp, err := store.CleanSpool(st, store.SpoolSweep{Now: o.Now, DryRun: o.DryRun, Keep: o.KeepStep})
	rep.Spool = sp
	if err != nil {
		return rep, fmt.Errorf("clean spool %s: %w", st.SpoolDir(), err)
	}
	return rep, nil
}

func cleanRuns(st *store.Store, o Options, emit func(Decision) error, rep *Report) error {
	del, err := store.OpenDeleter(st)
	if err != nil {
		return err
	}
	defer del.Close()
	del.SetNow(func() time.Time { return o.Now })
	if o.DryRun {
		// counted as the clean counts them, so would_free is what it frees
		if tombs, err := del.Tombstones(); err == nil && len(tombs) > 0 {
			rep.Tombstones = len(tombs)
			for _, t := range tombs {
				rep.Freed += del.TombBytes(t)
			}
			o.Log.Info("tombstones of a killed clean would be finished", "count", len(tombs), "bytes", rep.Freed)
		}
	} else {
		n, failed, freed, err := del.FinishTombstones()
		rep.Tombstones, rep.Freed = n, rep.Freed+freed
		if err != nil {
			// left for the next clean; the policy still applies to the rest
			rep.Failed += failed
			o.Log.Error("a deleted run's tombstone was not removed", "err", err)
		}
		if n > 0 {
			o.Log.Info("finished tombstones left by a killed clean", "count", n, "bytes", freed)
		}
	}
	sums, err := Summarize(st)
	if err != nil {
		return err
	}
	ds := Decide(o.Policy, o.Now.UnixMilli(), sums)
	if o.DryRun || o.Bytes {
		sizeAll(del, o, ds)
	}
	var emitErr error
	for i := range ds {
		var copies, unkept, held []string
		if ds[i].Action == Delete && !o.DryRun {
			if run, err := st.ReadRun(ds[i].RunID); err == nil {
				copies = artifacts.Locations(st, run) // before it goes: where its copies are
				if runconfig.Planted(st.RunDir(ds[i].RunID), &run.Settings) {
					// a driver's run with no settings kept for this store:
					// copied from another (whose copies these are) or
					// planted; loopkit wrote none of them from here
					copies, unkept = nil, copies
				}
				copies, held = heldElsewhere(st, ds[i].RunID, copies)
			}
		}
		carryOut(del, o, &ds[i], rep)
		if len(copies) > 0 && ds[i].Action == Delete && ds[i].Error == "" {
			if err := artifacts.Remove(ds[i].RunID, copies); err != nil {
				o.Log.Warn("the deleted run's copies were not all removed", "run", ds[i].RunID, "err", err)
			}
		}
		leftCopies(o, ds[i], unkept, "loopkit kept no settings for the run in this store (copied from another, or not a driver's)")
		leftCopies(o, ds[i], held, "the store of the workspace it is in holds the run too (a workspace copied whole)")
		if emitErr == nil && emit != nil {
			emitErr = emit(ds[i])
		}
	}
	return emitErr
}

// heldElsewhere splits off the copies that lie in a workspace whose own
// store (its .loop) is not st and still holds run id: a workspace copied
// whole names the original's copies by their absolute paths, and a
// pipeline's run (no settings kept to tell) would take them from it.
func heldElsewhere(st *store.Store, id string, copies []string) (mine, held []string) {
	for _, c := range copies {
		if otherHolder(st, id, c) {
			held = append(held, c)
		} else {
			mine = append(mine, c)
		}
	}
	return mine, held
}

func otherHolder(st *store.Store, id, copy string) bool {
	here, err := os.Stat(st.Root)
	if err != nil {
		return false
	}
	for d := filepath.Dir(copy); ; d = filepath.Dir(d) {
		root := filepath.Join(d, ".loop")
		if fi, err := os.Stat(root); err == nil && !os.SameFile(fi, here) {
			if run, err := os.Lstat(filepath.Join(root, "runs", id)); err == nil && run.IsDir() {
				return true
			}
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

// leftCopies names the copies of a deleted run left in place, and why:
// they may be another store's.
func leftCopies(o Options, d Decision, ds []string, why string) {
	if d.Action != Delete || d.Error != "" {
		return
	}
	for _, c := range ds {
		if _, err := os.Lstat(c); err == nil {
			o.Log.Warn(fmt.Sprintf("run %s: its copy %s is left: %s; remove it by hand if it is no other store's", d.RunID, c, why))
		}
	}
}

// sizeAll measures the runs whose bytes are reported without being
// deleted: a dry run's deletions, and every kept run with --bytes.
func sizeAll(del *store.Deleter, o Options, ds []Decision) {
	for i := range ds {
		d := &ds[i]
		if (d.Action == Delete && o.DryRun) || (d.Action != Delete && o.Bytes) {
			n := del.Bytes(d.RunID)
			d.Bytes = &n
		}
	}
}

// carryOut deletes a run decided for deletion and counts the outcome; a run
// that came into use since it was decided is reported as active instead.
func carryOut(del *store.Deleter, o Options, d *Decision, rep *Report) {
	if d.Action == Delete && !o.DryRun {
		n, err := del.Delete(d.RunID, d.UpdatedAt)
		switch {
		case errors.Is(err, store.ErrBusy):
			d.Action, d.Reason, d.Bytes = Exempt, ReasonActive, nil
			o.Log.Info("run came into use since it was decided; kept", "run", d.RunID, "why", err)
		case err != nil:
			d.Error, d.Bytes = err.Error(), &n
			rep.Failed++
			o.Log.Error("delete failed", "run", d.RunID, "err", err)
		default:
			d.Bytes = &n
		}
	}
	if d.Reason == ReasonUnreadable {
		o.Log.Warn("run.json unreadable; run kept", "run", d.RunID, "err", d.Error)
	}
	switch {
	case d.Action == Delete && d.Error == "":
		rep.Deleted++
		rep.Freed += *d.Bytes
	case d.Action == Exempt:
		rep.Exempt++
	default:
		rep.Kept++
	}
}

// LogSummary writes the one-line summary of a clean on stderr.
func (r Report) LogSummary(l lazylog.Logger, dryRun bool) {
	switch {
	case r.Skipped:
		l.Info("another loop-clean is running; skipped")
	case dryRun:
		l.Info("dry run: nothing deleted", "kept", r.Kept, "exempt", r.Exempt, "would_delete", r.Deleted, "would_free", r.Freed+r.Spool.Bytes, "spool_files", r.Spool.Files)
	default:
		l.Info("clean done", "kept", r.Kept, "exempt", r.Exempt, "deleted", r.Deleted, "bytes_freed", r.Freed+r.Spool.Bytes, "spool_files", r.Spool.Files, "failed", r.Failed)
	}
}

// StepRunGone tells whether the run a dead step's spool entry names is
// gone (or no run id at all): there is nothing left to record it in.
func StepRunGone(st *store.Store, m store.SpoolMeta) bool {
	return store.ValidRunID(m.RunID) != nil || !st.RunExists(m.RunID)
}

// autoCleanWait bounds how long an automatic clean waits for another
// clean (a few milliseconds, but a loop-clean whose output is not read
// holds its lock): two loops that end together must both clean, or the
// store settles above its limit.
const autoCleanWait = 10 * time.Second

// cleanBusy is called each time a waiting clean finds the lock held (tests).
var cleanBusy = func() {}

// AutoClean is the clean loop-record runs after a run ends: it waits a
// bounded time for another clean, never fails the caller, and turns
// problems into warnings.
func AutoClean(st *store.Store, p Policy, l lazylog.Logger) {
	// A dead step of a run that still exists is left for loop-clean, which
	// records it first (the recorder that calls this cannot).
	keep := func(_ string, m store.SpoolMeta) bool { return StepRunGone(st, m) }
	rep, err := Clean(st, Options{Policy: p, Now: time.Now(), Log: l, KeepStep: keep, WaitFor: autoCleanWait}, nil)
	if err != nil {
		l.Warn("automatic clean failed; the run's status was changed", "err", err)
		return
	}
	// Quiet unless it did something: a finished run should not add noise.
	if rep.Deleted == 0 && rep.Spool.Files == 0 && rep.Failed == 0 {
		l.Debug("automatic clean: nothing to delete", "kept", rep.Kept, "exempt", rep.Exempt)
		return
	}
	rep.LogSummary(l, false)
}
