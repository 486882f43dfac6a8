// Package slots keeps the machine-wide concurrency slots of loop drivers:
// lock files in a directory only the user can enter (loopkit's runtime
// directory, internal/userdir), used only when it is the user's own, mode
// 0700, and no symlink: another local user could have made a shared
// place's first, to block every loop or plant symlinks.
package slots

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/loopkit/loopkit/internal/store"
)

// chmod is os.Chmod (a test stands in for exFAT, which ignores it).
var chmod = os.Chmod

// Prepare makes dir (0700) when missing, checks it is the user's own and
// private, and creates the lock files slot.1 .. slot.n (0600) in it.
func Prepare(dir string, n int) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return err
	}
	created := true
	if err := os.Mkdir(dir, 0o700); errors.Is(err, os.ErrExist) {
		created = false
	} else if err != nil {
		return err
	}
	if created { // whatever the umask
		if err := chmod(dir, 0o700); err != nil {
			return err
		}
	}
	if err := private(dir, true); err != nil {
		return err
	}
	for i := 1; i <= n; i++ {
		p := filepath.Join(dir, "slot."+strconv.Itoa(i))
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
		if err != nil {
			return fmt.Errorf("slot %s: %w (remove it)", p, err)
		}
		err = f.Chmod(0o600)
		f.Close()
		if err != nil {
			return err
		}
		if err := private(p, false); err != nil {
			return err
		}
	}
	return nil
}

// private checks that path is the user's own, no symlink, and a directory
// of mode 0700 (isDir) or a regular file of mode 0600.
func private(path string, isDir bool) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	want, kind := os.FileMode(0o600), "a regular file"
	ok := fi.Mode().IsRegular()
	if isDir {
		want, kind, ok = os.FileMode(0o700), "a directory", fi.IsDir()
	}
	st, _ := fi.Sys().(*syscall.Stat_t)
	switch {
	case !ok:
		return fmt.Errorf("%s is not %s (a symlink?); refusing to use it: remove it", path, kind)
	case st == nil || int(st.Uid) != os.Getuid():
		return fmt.Errorf("%s belongs to another user; refusing to use it: remove it or set XDG_RUNTIME_DIR", path)
	case fi.Mode().Perm() != want && !keepsModes(filepath.Dir(path)):
		fs := "the file system"
		if t := store.FSType(path); t != "" {
			fs += " (" + t + ")"
		}
		return fmt.Errorf("%s has mode %04o: %s keeps no file modes; set XDG_RUNTIME_DIR to a folder of yours on another file system", path, fi.Mode().Perm(), fs)
	case fi.Mode().Perm() != want:
		return fmt.Errorf("%s has mode %04o, want %04o; refusing to use it: chmod %o it or remove it", path, fi.Mode().Perm(), want, want)
	}
	return nil
}

// keepsModes tells whether a file made 0600 in dir stays so: exFAT and
// FAT show every file 0777 whatever chmod was asked.
func keepsModes(dir string) bool {
	f, err := os.CreateTemp(dir, ".mode-*")
	if err != nil {
		return true // cannot tell: the mode's own message stands
	}
	f.Close()
	defer os.Remove(f.Name())
	if chmod(f.Name(), 0o600) != nil {
		return true
	}
	fi, err := os.Lstat(f.Name())
	return err != nil || fi.Mode().Perm() == 0o600
}
