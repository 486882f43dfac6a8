package loopdrive

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/procrec"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/treelock"
	"github.com/loopkit/loopkit/internal/userdir"
)

// TreeLockPath is the lock of the work tree a run in dir edits.
func TreeLockPath(st *store.Store, dir string) string {
	return treelock.Path(filepath.Join(st.Root, treelock.Dir), treelock.Of(dir))
}

// lockTree takes the lock of the work tree run id edits, held like the
// driver lock: two loops in one tree would each record the other agent's
// edits as their own. A tree another run holds is exit 75, naming it.
func (h *holder) lockTree(dir, id string) error {
	path := TreeLockPath(h.st, dir)
	// the store first, with its checks (modes, another user's folder)
	if err := h.st.Init(); err != nil {
		return cli.Failf("%w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), store.DirMode); err != nil {
		return cli.Failf("work tree lock: %w", err)
	}
	var l *store.Lock
	try := func() (*treelock.Note, error) {
		var err error
		l, err = store.LockFile(path, true, false)
		if errors.Is(err, store.ErrLocked) {
			if in := treelock.Read(path, false); in != nil {
				in.Path = path
				return in, nil
			}
			return &treelock.Note{}, nil
		}
		if err == nil {
			if in := olderInTree(h.st, dir, id); in != nil {
				l.Unlock()
				return in, nil
			}
		}
		return nil, err
	}
	// A run that has just ended keeps its lock until its holder sees the
	// driver gone; a lock that names no run is refused at once.
	live := func(in *treelock.Note) bool {
		if in.ID == "" {
			return true
		}
		// not run.json's pid: the agent's to write; an older loopkit's
		// driver (a loop started before an upgrade) is refused as live too
		return len(procrec.Drivers(h.st.RunDir(in.ID))) > 0 || len(procrec.OlderDrivers(h.st.RunDir(in.ID))) > 0
	}
	if err := treelock.Take(treelock.Of(dir), try, live); err != nil {
		return err
	}
	h.locks = append(h.locks, l)
	if err := l.SetNote(id + "\n"); err != nil {
		h.env.Log.Warn("work tree lock: the run's id not written", "err", err)
	}
	// and for the runs of other stores (another --store, LOOP_STORE)
	if err := h.lockUserTree(treelock.Of(dir), id, store.GitTop(dir) == ""); err != nil {
		h.locks = h.locks[:len(h.locks)-1]
		l.Unlock()
		return err
	}
	return nil
}

// olderInTree is the run of st that a live driver of an older loopkit
// drives in dir's work tree: a version from before the work tree locks
// takes none, and a loop here would mix its changes with that one's.
func olderInTree(st *store.Store, dir, self string) *treelock.Note {
	runs := procrec.OlderDriverRuns()
	if len(runs) == 0 {
		return nil // most users never ran an older loopkit
	}
	tree := treelock.Of(dir)
	for runDir := range runs {
		id := filepath.Base(runDir)
		if id == self || store.ValidRunID(id) != nil || runDir != st.RunDir(id) {
			continue
		}
		run, err := st.ReadRun(id)
		if err != nil {
			continue
		}
		d := run.Settings.Dir
		if d == "" {
			d = run.WorkspaceRoot
		}
		if filepath.IsAbs(d) && treelock.Of(d) == tree {
			return &treelock.Note{ID: id}
		}
	}
	return nil
}

// lockUserTree takes the user-wide locks of tree for run id, waiting
// (treelock.Grace) for a run whose driver has ended; a live one is exit
// 75. Without a usable runtime directory only the store's lock holds.
func (h *holder) lockUserTree(tree, id string, outsideGit bool) error {
	dir, err := userdir.RuntimeSub(treelock.Dir)
	if err != nil {
		h.env.Log.Warn("work tree lock: only this store's runs are kept out of the tree", "err", err)
		return nil
	}
	var locks []*store.Lock
	try := func() (in *treelock.Note, err error) {
		locks, in, err = treelock.TakeUser(dir, tree, id, h.parent, outsideGit)
		return in, err
	}
	if err := treelock.Take(tree, try, (*treelock.Note).Live); err != nil {
		return err
	}
	h.locks = append(h.locks, locks...)
	return nil
}

// notGit is what the driver says once at the start of a run in a folder
// that is in no git repository: what works there and what does not.
func notGit(dir string) string {
	return treelock.Of(dir) + " is not a git repository: each iteration's changes are kept in the run's own git" +
		" directory (files changed, changes.patch, loop-view diff and checkout work); there is no --worktree" +
		" and no merge here (git init makes it one)"
}
