package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

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
			if !ok || id == userdir.UID() || id == 0 {
				return nil
			}
			return fmt.Errorf("store %s would be made in %s, which belongs to %s, not to %s: run as its owner, or set LOOP_STORE to a folder of yours",
				root, p, userdir.Who(id), userdir.Who(userdir.UID()))
		}
		if !errors.Is(err, fs.ErrNotExist) || p == filepath.Dir(p) {
			return nil
		}
	}
}
