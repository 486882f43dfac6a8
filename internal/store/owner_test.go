package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/testsupport/otheruser"
)

// In a repository a group shares (setgid, umask 002), another member made
// .loop first, mode 0777, or as a link to a folder of theirs: the driver
// wrote its runs there, the other member's to rename, swap or delete. Now
// every command refuses that store with one line naming it and its owner.
func TestStoreOfAnotherUser(t *testing.T) {
	for _, link := range []bool{false, true} {
		ws := t.TempDir()
		theirs := otheruser.Planted(t, filepath.Join(ws, ".loop"), link)
		st, err := Resolve("", ws)
		if err == nil {
			err = st.Init()
		}
		if err == nil || !strings.Contains(err.Error(), "belongs to ") || !strings.Contains(err.Error(), "LOOP_STORE") {
			t.Errorf("link %v: store in another user's folder: %v, want a refusal", link, err)
		}
		if names, _ := os.ReadDir(theirs); len(names) != 0 {
			t.Errorf("link %v: wrote %v in another user's folder (%v)", link, names, err)
		}
	}
}

// runs/ of another user's, in a store of this user's (planted while the
// store was open to others), is refused as well.
func TestStoreRunsOfAnotherUser(t *testing.T) {
	root := filepath.Join(t.TempDir(), ".loop")
	if err := os.MkdirAll(filepath.Join(root, "runs"), 0o700); err != nil {
		t.Fatal(err)
	}
	if os.Getuid() != 0 {
		t.Skip("needs root to give runs/ away while the root stays ours")
	}
	otheruser.Owns(t, filepath.Join(root, "runs"))
	if _, err := Open(root); err == nil || !strings.Contains(err.Error(), "runs belongs to ") {
		t.Errorf("Open with another user's runs/ = %v, want a refusal", err)
	}
}

// Root (a sudo) in another user's folder outside git made .loop there,
// root's: the owner's own loop was then refused, and root's runs were the
// owner's to delete. Nothing is made; the line names the folder's owner.
func TestStoreInAnotherUsersFolder(t *testing.T) {
	ws, _ := filepath.EvalSymlinks(t.TempDir()) // macOS: /var is a link
	otheruser.Owns(t, ws)
	st, err := Resolve("", ws)
	if err == nil {
		err = st.Init()
	}
	if err == nil || !strings.Contains(err.Error(), "would be made in "+ws+", which belongs to ") {
		t.Errorf("store in another user's folder: %v, want a refusal", err)
	}
	if _, err := os.Lstat(filepath.Join(ws, ".loop")); !os.IsNotExist(err) {
		t.Errorf(".loop made in another user's folder (%v)", err)
	}
}
