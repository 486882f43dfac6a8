// Package otheruser makes a file another user's to the test's process,
// so that a check against local users runs as root and as not.
package otheruser

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/loopkit/loopkit/internal/userdir"
)

// Owns makes path (not followed) another user's to this process: chowned
// away under root; else this process plays a user other than its own
// (userdir.UID) until the test ends, and every file of its own is another's.
func Owns(t *testing.T, path string) {
	t.Helper()
	if os.Getuid() == 0 {
		if err := os.Lchown(path, ID, ID); err != nil {
			t.Skip("cannot chown:", err)
		}
		return
	}
	real := os.Getuid()
	userdir.UID = func() int { return real + 1 }
	t.Cleanup(func() { userdir.UID = os.Getuid })
}

// Planted makes path what another user put there first: with link a link
// to a folder of theirs, else a folder of theirs; mode 0777 either way.
// It returns that folder, resolved (macOS: /var is a link).
func Planted(t *testing.T, path string, link bool) string {
	t.Helper()
	theirs := path
	if link {
		theirs = t.TempDir()
		if err := os.Symlink(theirs, path); err != nil {
			t.Fatal(err)
		}
	} else if err := os.Mkdir(theirs, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(theirs, 0o777); err != nil {
		t.Fatal(err)
	}
	Owns(t, theirs)
	real, err := filepath.EvalSymlinks(theirs)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// ID is the other user's uid (and gid), as Owns gives files to.
const ID = 4242

// Reachable is a new folder every user may enter (the test's own
// temporary folders are 0700): a place the other user's part of a test
// (Rerun) can reach. Folders a test narrowed in it (chmod 0) are opened
// again before it is removed: without root (Rerun skipped) the removal
// failed on them, and so did the test.
func Reachable(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { // before TempDir's removal, registered first
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if d != nil && d.IsDir() && d.Type()&fs.ModeSymlink == 0 {
				os.Chmod(path, 0o700) // before WalkDir reads it
			}
			return nil
		})
	})
	return dir
}

// Rerun runs the calling test again as uid ID, its environment with env
// ("KEY=VALUE") added, and returns what it printed: the test, finding its
// KEY set, does the other user's part. A check of what a user may not
// read or write only fails as someone other than root, and a test cannot
// drop root for itself alone. Skipped unless root with setpriv.
func Rerun(t *testing.T, env ...string) string {
	t.Helper()
	setpriv := Rerunnable(t)
	bin := filepath.Join(Reachable(t), filepath.Base(os.Args[0]))
	data, err := os.ReadFile(os.Args[0])
	if err == nil {
		err = os.WriteFile(bin, data, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	id := strconv.Itoa(ID)
	cmd := exec.Command(setpriv, "--reuid="+id, "--regid="+id, "--clear-groups",
		bin, "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as uid %s: %v: %s", id, err, out)
	}
	return string(out)
}

// Rerunnable skips the test unless Rerun can run it as another user
// (root, with setpriv): before a test narrows folders that the test's
// own clean-up could not remove without root. It returns setpriv's path.
func Rerunnable(t *testing.T) string {
	t.Helper()
	setpriv, err := exec.LookPath("setpriv")
	if os.Geteuid() != 0 || err != nil {
		t.Skip("needs root and setpriv to run as another user")
	}
	return setpriv
}
