package treelock

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/loopkit/loopkit/internal/procid"
	"github.com/loopkit/loopkit/internal/store"
)

// The store's tree lock is seen only by runs of that store. These locks,
// in the user's runtime directory, are seen by every run of the user's,
// whatever its store: a run holds its tree's lock exclusively, and a run
// outside git, whose tree holds every folder under it, holds each of its
// ancestors' shared, so that a run outside git in a folder above or below
// it is refused as well. A git repository inside such a folder is no
// overlap: its files are in its own repository, not in the folder's trees.

// TakeUser takes the user-wide locks of tree in dir for run id, whose
// driver is pid, or none and the run in the way (an empty Note when it
// cannot be told).
func TakeUser(dir, tree, id string, pid int, outsideGit bool) ([]*store.Lock, *Note, error) {
	var held []*store.Lock
	release := func() {
		for _, l := range held {
			l.Unlock()
		}
	}
	if outsideGit {
		for a := filepath.Dir(tree); ; a = filepath.Dir(a) {
			l, err := store.LockFile(Path(dir, a), false, false)
			if errors.Is(err, store.ErrLocked) {
				in := Read(Path(dir, a), true)
				if in.Around() {
					if a == filepath.Dir(a) {
						break
					}
					continue
				}
				release()
				if in == nil {
					in = &Note{}
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
	l, err := store.LockFile(Path(dir, tree), true, false)
	if errors.Is(err, store.ErrLocked) {
		if in := inTree(dir, tree); !in.Around() {
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
// be told is an empty Note, waited for.
func inTree(dir, tree string) *Note {
	if in := Read(Path(dir, tree), true); in.Live() && in.Tree == tree {
		return in
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*.lock"))
	for _, n := range names {
		if in := Read(n, true); in.Live() && strings.HasPrefix(in.Tree, strings.TrimSuffix(tree, "/")+"/") {
			return in
		}
	}
	return &Note{}
}
