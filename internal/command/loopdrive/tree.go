package loopdrive

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/procid"
	"github.com/loopkit/loopkit/internal/store"
)

// TreesDir holds one lock per work tree a driver edits, named by the
// SHA-256 of the tree's real path.
const TreesDir = "trees"

// treeOf is the work tree a run in dir edits: its git top level, else dir
// itself, with every symlink resolved, so that two spellings of one
// folder are one tree.
func treeOf(dir string) string {
	tree := dir
	if top := store.GitTop(dir); top != "" {
		tree = top
	}
	if abs, err := filepath.Abs(tree); err == nil {
		tree = abs
	}
	if real, err := filepath.EvalSymlinks(tree); err == nil {
		tree = real
	}
	return tree
}

// TreeLockPath is the lock of the work tree a run in dir edits.
func TreeLockPath(st *store.Store, dir string) string {
	sum := sha256.Sum256([]byte(treeOf(dir)))
	return filepath.Join(st.Root, TreesDir, hex.EncodeToString(sum[:])+".lock")
}

// lockTree takes the lock of the work tree run id edits, held like the
// driver lock: two loops in one tree would each record the other agent's
// edits as their own. A tree another run holds is exit 75, naming it.
func (h *holder) lockTree(dir, id string) error {
	path := TreeLockPath(h.st, dir)
	if err := os.MkdirAll(filepath.Dir(path), store.DirMode); err != nil {
		return cli.Failf("work tree lock: %w", err)
	}
	// A run that has just ended keeps its lock until its holder sees the
	// driver gone: a lock whose run has no live driver is waited for.
	deadline := time.Now().Add(treeLockGrace)
	l, err := store.LockFile(path, true, false)
	for errors.Is(err, store.ErrLocked) {
		other := treeHolder(path)
		if other != "" && time.Now().Before(deadline) {
			if pid := driverPID(h.st, other); pid <= 0 || !procid.Running(pid) {
				time.Sleep(50 * time.Millisecond)
				l, err = store.LockFile(path, true, false)
				continue
			}
		}
		who := "another run"
		if other != "" {
			who = "run " + other
		}
		return &cli.ExitError{Code: exitcode.Busy,
			Err:  fmt.Errorf("%s is already running in %s: two loops in one work tree would mix their changes", who, treeOf(dir)),
			Hint: "run this one in its own git worktree with --worktree, or wait until the other ends"}
	}
	if err != nil {
		return cli.Failf("work tree lock: %w", err)
	}
	h.locks = append(h.locks, l)
	if err := l.SetNote(id + "\n"); err != nil {
		h.env.Log.Warn("work tree lock: the run's id not written", "err", err)
	}
	// and for the runs of other stores (another --store, LOOP_STORE)
	if err := h.lockUserTree(treeOf(dir), id, store.GitTop(dir) == ""); err != nil {
		h.locks = h.locks[:len(h.locks)-1]
		l.Unlock()
		return err
	}
	return nil
}

// treeLockGrace is how long a lock left by a driver that has exited is
// waited for: its holder polls for the driver every 100 ms, slower on a
// loaded machine.
const treeLockGrace = 15 * time.Second

// treeHolder is the run id written in a held tree lock, "" when it says
// nothing that is a run id (anyone may write there).
func treeHolder(path string) string {
	f, err := store.OpenRegular(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 256))
	id := strings.TrimSpace(string(b))
	if store.ValidRunID(id) != nil {
		return ""
	}
	return id
}

// notGit is what the driver says once at the start of a run in a folder
// that is in no git repository: what works there and what does not.
func notGit(dir string) string {
	return treeOf(dir) + " is not a git repository: each iteration's changes are kept in the run's own git" +
		" directory (files changed, changes.patch, loop-view diff and checkout work); there is no --worktree" +
		" and no merge here (git init makes it one)"
}
