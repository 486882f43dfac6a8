// Package otheruser makes a file another user's to the test's process,
// so that a check against local users runs as root and as not.
package otheruser

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loopkit/loopkit/internal/userdir"
)

// Owns makes path (not followed) another user's to this process: chowned
// away under root; else this process plays a user other than its own
// (userdir.UID) until the test ends, and every file of its own is another's.
func Owns(t *testing.T, path string) {
	t.Helper()
	if os.Getuid() == 0 {
		if err := os.Lchown(path, 4242, 4242); err != nil {
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
