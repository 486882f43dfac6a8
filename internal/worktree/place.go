package worktree

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/loopkit/loopkit/internal/userdir"
)

// placeable says why git could not make the worktree template puts at
// path: git worktree add makes it and its missing parents in the nearest
// folder that exists, which this user must be able to write. The default
// template puts it beside the repository, and a repository in a folder of
// root's or a team's (/srv/app) has no room there: the run failed after
// its branch was made, with a hint to chmod a folder that is not the
// user's.
func placeable(template, path string) error {
	for p := filepath.Dir(path); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)) && p != filepath.Dir(p) {
			continue
		}
		const fix = "set worktree_path_template (--worktree-path-template) to a folder you can write"
		switch {
		case err != nil:
			return fmt.Errorf("worktree_path_template %q puts the run's worktree in %s: %v; %s", template, p, err, fix)
		case !fi.IsDir():
			return fmt.Errorf("worktree_path_template %q puts the run's worktree in %s, which is not a folder: %s", template, p, fix)
		case unix.Access(p, unix.W_OK|unix.X_OK) != nil:
			owner := ""
			if id, ok := userdir.Owner(fi); ok {
				owner = "belongs to " + userdir.Who(id) + " and "
			}
			return fmt.Errorf("worktree_path_template %q puts the run's worktree in %s, which %smay not be written by %s: %s",
				template, p, owner, userdir.Who(userdir.UID()), fix)
		}
		return nil
	}
}
