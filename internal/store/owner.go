package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/loopkit/loopkit/internal/userdir"
)

// notOurs refuses a folder of the store that another user owns: its owner
// can rename, swap or plant anything in it (a .loop another member of a
// shared repository's group made first, or a link to a folder of theirs),
// and what this user writes there is the owner's to delete; root's runs
// in a user's store, after a sudo, lock that user out of them.
func notOurs(path string, fi os.FileInfo) error {
	id, ok := userdir.Owner(fi)
	if !ok || id == userdir.UID() {
		return nil
	}
	return fmt.Errorf("store %s belongs to %s, not to %s: each user keeps runs in a store of their own; run as its owner, or set LOOP_STORE to a folder of yours",
		path, userdir.Who(id), userdir.Who(userdir.UID()))
}

// foreignParent refuses to make the store root in a folder another user
// (not root) owns: a workspace of theirs, whose owner could delete the
// runs, and whose own loop the store would then lock out.
func foreignParent(root string) error {
	for p := filepath.Dir(root); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err == nil {
			id, ok := userdir.Owner(fi)
			if !ok || id == userdir.UID() {
				return nil
			}
			if id == 0 {
				// root's, open to all (/tmp), or not: a repository of
				// root's, where mkdir said only "permission denied" and
				// the hint was to chmod a folder that is not theirs
				if unix.Access(p, unix.W_OK|unix.X_OK) == nil {
					return nil
				}
				return fmt.Errorf("store %s would be made in %s, which belongs to %s and may not be written by %s: set LOOP_STORE to a folder of yours",
					root, p, userdir.Who(id), userdir.Who(userdir.UID()))
			}
			return fmt.Errorf("store %s would be made in %s, which belongs to %s, not to %s: run as its owner, or set LOOP_STORE to a folder of yours",
				root, p, userdir.Who(id), userdir.Who(userdir.UID()))
		}
		if !errors.Is(err, fs.ErrNotExist) || p == filepath.Dir(p) {
			return nil
		}
	}
}

// barrier explains a store this user cannot reach: the first folder on
// path, in the store at root or on the way to it, that does not let them
// in. Another user's (a home of 0750) is
// named with its owner; "lstat …/runs: permission denied" named neither,
// and the hint was to chmod it. One of their own (chmod 000, by the agent
// or a script) is named with the chmod that lets them in again.
func barrier(root, path string) error {
	var up []string // path's folders, the top first
	for p := filepath.Dir(path); ; p = filepath.Dir(p) {
		up = append([]string{p}, up...)
		if p == filepath.Dir(p) {
			break
		}
	}
	for _, p := range append(up, path) {
		fi, err := os.Stat(p)
		if err != nil {
			return nil
		}
		if unix.Access(p, unix.X_OK) == nil {
			continue
		}
		if id, ok := userdir.Owner(fi); ok && id != userdir.UID() {
			return fmt.Errorf("store %s cannot be reached: %s belongs to %s and does not let %s in: run as its owner, or set LOOP_STORE to a folder of yours",
				root, p, userdir.Who(id), userdir.Who(userdir.UID()))
		}
		return fmt.Errorf("store %s cannot be reached: %s (mode %04o) does not let %s in: chmod u+rwx %s",
			root, p, fi.Mode().Perm(), userdir.Who(userdir.UID()), p)
	}
	return nil
}

// closedRun says why run id's folder cannot be read, and how it is read
// again: another user's (a run an older loopkit resumed under sudo) is
// given back with chown, one the user closed with chmod.
func (s *Store) closedRun(id string, err error) error {
	dir := s.RunDir(id)
	if fi, lerr := os.Lstat(dir); lerr == nil {
		if owner, ok := userdir.Owner(fi); ok && owner != userdir.UID() {
			return fmt.Errorf("run %s cannot be read: %s belongs to %s, not to %s: give it back (sudo chown -R %s %s)",
				id, dir, userdir.Who(owner), userdir.Who(userdir.UID()), userdir.Name(userdir.UID()), dir)
		}
	}
	return fmt.Errorf("run %s cannot be read: %w: chmod -R u+rwX %s", id, err, dir)
}
