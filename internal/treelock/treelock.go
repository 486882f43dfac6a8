// Package treelock owns the locks of a work tree: two loops in one tree
// would each record the other agent's edits as their own. A store keeps
// one lock per tree for its runs (a note of the run's id); the user's
// runtime directory keeps another for every run of the user's, whatever
// its store (a note of the run's id, driver and tree; see user.go).
package treelock

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/procid"
	"github.com/loopkit/loopkit/internal/store"
)

// Dir holds one lock per work tree a driver edits, named by the SHA-256
// of the tree's real path: under a store's root, and under the runtime
// directory.
const Dir = "trees"

// Grace is how long a lock left by a driver that has exited is waited
// for: its holder polls for the driver every 100 ms, slower on a loaded
// machine.
const Grace = 15 * time.Second

// Of is the work tree a run in dir edits: its git top level, else dir
// itself, with every symlink resolved and each name in its folder's case,
// so that two spellings of one folder are one tree.
func Of(dir string) string {
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
	return store.RealCase(tree)
}

// Path is the lock of tree in the locks directory dir.
func Path(dir, tree string) string {
	sum := sha256.Sum256([]byte(tree))
	return filepath.Join(dir, hex.EncodeToString(sum[:])+".lock")
}

// Note is what a held lock says of its run: the id alone in a store's
// lock; the id, its driver's pid and start time (a note outlives its
// lock, and pids are reused) and its tree in a user-wide one. An empty
// Note is a run that cannot be told.
type Note struct {
	ID, Tree string
	PID      int
	Start    uint64
	// Path is the lock file, when the caller says.
	Path string
}

// Live: its driver still runs (else its holder is about to let go).
func (n *Note) Live() bool { return n != nil && procid.Alive(n.PID, n.Start) }

// Around: its driver runs this one (its validation runs loopkit): it
// waits for this run to end, its agent edits nothing meanwhile, so it is
// no overlap.
func (n *Note) Around() bool { return n.Live() && procid.Ancestor(n.PID) }

// noteMax caps what is read of a note: anyone may write there.
const noteMax = 8 << 10

// Read reads the note of the lock at path: "ID\n" in a store's lock,
// "ID PID START\nTREE" in a user-wide one (userWide); nil when it is not
// that.
func Read(path string, userWide bool) *Note {
	f, err := store.OpenRegular(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, noteMax))
	if !userWide {
		if id := strings.TrimSpace(string(b)); store.ValidRunID(id) == nil {
			return &Note{ID: id}
		}
		return nil
	}
	head, tree, ok := strings.Cut(string(b), "\n")
	f3 := strings.Fields(head)
	if !ok || len(f3) != 3 || store.ValidRunID(f3[0]) != nil || !filepath.IsAbs(tree) {
		return nil
	}
	pid, err1 := strconv.Atoi(f3[1])
	start, err2 := strconv.ParseUint(f3[2], 10, 64)
	if err1 != nil || err2 != nil {
		return nil
	}
	return &Note{ID: f3[0], PID: pid, Start: start, Tree: tree}
}

// Take calls try until it takes its locks (try returns no Note). A run in
// the way whose driver has ended (not live) is waited for, up to Grace:
// its holder has not yet seen its driver go. A live one, or one still
// there after Grace, is exit 75, naming it; a failure of try is exit 1.
func Take(tree string, try func() (*Note, error), live func(*Note) bool) error {
	deadline := time.Now().Add(Grace)
	for {
		in, err := try()
		if err != nil {
			return cli.Failf("work tree lock: %w", err)
		}
		if in == nil {
			return nil
		}
		if live(in) {
			return busy(in, tree)
		}
		if time.Now().After(deadline) {
			return stranger(in, tree)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stranger is the refusal of a run in tree whose lock in.ID's ended run
// named, and another process still holds: the agent can leave one holding
// any file of the store, and only stopping it frees the tree.
func stranger(in *Note, tree string) error {
	who, lock := "a process", "the lock"
	if in.Path != "" {
		lock = in.Path
		if pid := FlockHolder(in.Path); pid > 0 {
			who = fmt.Sprintf("process %d", pid)
		}
	}
	return &cli.ExitError{Code: exitcode.Busy,
		Err: fmt.Errorf("work tree %s: its lock %s is held by %s, which is no driver loopkit started "+
			"(run %s ended; the agent can leave one holding it)", tree, lock, who, in.ID),
		Hint: fmt.Sprintf("find it with 'fuser %s', stop it, then try again", lock)}
}

// busy is the refusal of a run in tree because of in.
func busy(in *Note, tree string) error {
	who, where := "another run", tree
	if in.ID != "" {
		who = "run " + in.ID
	}
	if in.ID != "" && in.Tree != "" {
		where = in.Tree
	}
	return &cli.ExitError{Code: exitcode.Busy,
		Err:  fmt.Errorf("%s is already running in %s: two loops in one work tree would mix their changes", who, where),
		Hint: NewRunHint}
}

// NewRunHint is the hint of busy for a new run; a resume, whose run keeps
// the tree it started in, cannot take --worktree (BusyResumeHint).
const (
	NewRunHint     = "run this one in its own git worktree with --worktree, or wait until the other ends"
	BusyResumeHint = "wait until the other ends (or cancel it), then resume: a run keeps the work tree it started in"
)
