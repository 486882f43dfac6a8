package treelock

import (
	"os"
	"path/filepath"

	"github.com/loopkit/loopkit/internal/store"
)

// SweepStore removes the store's tree locks that no process holds and
// whose note names a run the store no longer has, and returns how many
// went: each work tree ever run in (every --worktree run's own) left one
// in trees/ for good, long after the clean had removed its run. A taker
// that opened one before it went finds it unlinked and takes a new one
// (store.LockFile), so a lock is never held twice.
func SweepStore(st *store.Store) int {
	names, err := filepath.Glob(filepath.Join(st.Root, Dir, "*.lock"))
	if err != nil {
		return 0
	}
	n := 0
	for _, p := range names {
		if in := Read(p, false); in == nil || st.RunExists(in.ID) {
			continue
		}
		l, err := store.LockFile(p, true, false)
		if err != nil {
			continue // held: a driver is in that tree
		}
		// read again under the lock: a run may have taken it meanwhile
		if in := Read(p, false); in != nil && !st.RunExists(in.ID) && os.Remove(p) == nil {
			n++
		}
		l.Unlock()
	}
	return n
}
