package loopdrive

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
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
	"github.com/loopkit/loopkit/internal/userdir"
)

// The store's tree lock is seen only by runs of that store. These locks,
// in the user's runtime directory, are seen by every run of the user's,
// whatever its store: a run holds its tree's lock exclusively, and a run
// outside git, whose tree holds every folder under it, holds each of its
// ancestors' shared, so that a run outside git in a folder above or below
// it is refused as well. A git repository inside such a folder is no
// overlap: its files are in its own repository, not in the folder's trees.

// overlap is a run found in the way: its id, its driver's pid and start
// time (a note outlives its lock, and pids are reused), and its tree.
type overlap struct {
	id, tree string
	pid      int
	start    uint64
}

// live: its driver still runs (else its holder is about to let go).
func (o *overlap) live() bool { return o != nil && procid.Alive(o.pid, o.start) }

// around: its driver runs this one (its validation runs loopkit): it waits
// for this run to end, its agent edits nothing meanwhile, so it is no
// overlap.
func (o *overlap) around() bool { return o.live() && procid.Ancestor(o.pid) }

// lockUserTree takes the user-wide locks of tree for run id, waiting
// (treeLockGrace) for a run whose driver has ended; a live one is exit 75.
// Without a usable runtime directory only the store's lock holds.
func (h *holder) lockUserTree(tree, id string, outsideGit bool) error {
	dir, err := userdir.RuntimeSub(TreesDir)
	if err != nil {
		h.env.Log.Warn("work tree lock: only this store's runs are kept out of the tree", "err", err)
		return nil
	}
	deadline := time.Now().Add(treeLockGrace)
	for {
		locks, in, err := takeUserTree(dir, tree, id, h.parent, outsideGit)
		if err != nil {
			return cli.Failf("work tree lock: %w", err)
		}
		if in == nil {
			h.locks = append(h.locks, locks...)
			return nil
		}
		if in.live() || time.Now().After(deadline) {
			who, where := "another run", tree
			if in.id != "" {
				who, where = "run "+in.id, in.tree
			}
			return &cli.ExitError{Code: exitcode.Busy,
				Err:  fmt.Errorf("%s is already running in %s: two loops in one work tree would mix their changes", who, where),
				Hint: "run this one in its own git worktree with --worktree, or wait until the other ends"}
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// takeUserTree takes the locks, or none and the run in the way.
func takeUserTree(dir, tree, id string, pid int, outsideGit bool) ([]*store.Lock, *overlap, error) {
	var held []*store.Lock
	release := func() {
		for _, l := range held {
			l.Unlock()
		}
	}
	if outsideGit {
		for a := filepath.Dir(tree); ; a = filepath.Dir(a) {
			l, err := store.LockFile(userTreeLock(dir, a), false, false)
			if errors.Is(err, store.ErrLocked) {
				in := readOverlap(userTreeLock(dir, a))
				if in.around() {
					if a == filepath.Dir(a) {
						break
					}
					continue
				}
				release()
				if in == nil {
					in = &overlap{}
				}
				return nil, in, nil
			}
			if err != nil {
				release()
				return nil, nil, err
			}
			held = append(held, l)
			if a == filepath.Dir(a) {
				break
			}
		}
	}
	l, err := store.LockFile(userTreeLock(dir, tree), true, false)
	if errors.Is(err, store.ErrLocked) {
		if in := inTree(dir, tree); !in.around() {
			release()
			return nil, in, nil
		}
		return held, nil, nil
	}
	if err != nil {
		release()
		return nil, nil, err
	}
	start, _ := procid.Start(pid)
	if err := l.SetNote(fmt.Sprintf("%s %d %d\n%s", id, pid, start, tree)); err != nil {
		l.Unlock()
		release()
		return nil, nil, err
	}
	return append(held, l), nil, nil
}

// inTree is the run that holds tree's lock: its own holder, else a run
// outside git in a folder below it (holding it shared); a run that cannot
// be told is an empty overlap, waited for.
func inTree(dir, tree string) *overlap {
	if in := readOverlap(userTreeLock(dir, tree)); in.live() && in.tree == tree {
		return in
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*.lock"))
	for _, n := range names {
		if in := readOverlap(n); in.live() && strings.HasPrefix(in.tree, strings.TrimSuffix(tree, "/")+"/") {
			return in
		}
	}
	return &overlap{}
}

// userTreeLock is the user-wide lock of a tree, by the SHA-256 of its path.
func userTreeLock(dir, tree string) string {
	sum := sha256.Sum256([]byte(tree))
	return filepath.Join(dir, hex.EncodeToString(sum[:])+".lock")
}

// readOverlap reads a lock's note, "ID PID START\nTREE"; nil when it is
// not one.
func readOverlap(path string) *overlap {
	f, err := store.OpenRegular(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 8<<10))
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
	return &overlap{id: f3[0], pid: pid, start: start, tree: tree}
}
