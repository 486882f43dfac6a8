package userdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// UID is os.Getuid (a test stands in another user's).
var UID = os.Getuid

// Owner is the uid that owns fi, and whether fi says.
func Owner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// NotYours is the refusal of path, owned by user owner: a HOME or an
// XDG_ variable kept from another user by sudo or su is the usual cause.
func NotYours(path string, owner int) error {
	return fmt.Errorf("%w (made by them, or a HOME or XDG_ variable of theirs kept by sudo or su?)", theirs(path, owner))
}

// Yours is nil when path (followed) is this user's, else the refusal
// naming its owner: what loopkit writes into a folder another user made
// first (a predictable name in /tmp) is theirs to read, swap or delete.
func Yours(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if id, ok := Owner(fi); ok && id != UID() {
		return theirs(path, id)
	}
	return nil
}

func theirs(path string, owner int) error {
	return fmt.Errorf("%s belongs to %s, not to %s", path, Who(owner), Who(UID()))
}

// Who is "NAME (uid N)", or "uid N" when no name is known.
func Who(id int) string {
	if name := Name(id); name != strconv.Itoa(id) {
		return name + " (uid " + strconv.Itoa(id) + ")"
	}
	return "uid " + strconv.Itoa(id)
}

// Name is user id's login name, or the number when none is known (a uid
// with no passwd entry, in a container): what chown and sudo -u take.
func Name(id int) string {
	if u, err := user.LookupId(strconv.Itoa(id)); err == nil && u.Username != "" {
		return u.Username
	}
	return strconv.Itoa(id)
}

// ownAncestor checks that the nearest existing folder above dir is this
// user's, or root's and open to this user (/tmp): creating dir and its
// missing parents in another user's home leaves them folders they cannot
// enter (root's ~/.local in theirs, after a sudo that kept HOME), and in
// root's the mkdir's "permission denied" hid the cause.
func ownAncestor(dir string) error {
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err == nil {
			id, ok := Owner(fi)
			if !ok || id == UID() || id == 0 && unix.Access(p, unix.W_OK) == nil {
				return nil
			}
			return NotYours(p, id)
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) || p == filepath.Dir(p) {
			return nil
		}
	}
}
