package userdir_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/testsupport/otheruser"
	"github.com/loopkit/loopkit/internal/userdir"
)

// A HOME kept from another user (sudo without -H, su without -) made
// loopkit create ~/.local/state/loopkit in that user's home, owned by the
// caller: root's folders there locked the owner out of their own
// ~/.local. Now nothing is made and the line names the folder and why.
func TestStateInAnotherUsersHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("XDG_RUNTIME_DIR", "")
	otheruser.Owns(t, home)
	_, err := userdir.State()
	if err == nil || !strings.Contains(err.Error(), home+" belongs to ") || !strings.Contains(err.Error(), "kept by sudo or su?)") {
		t.Fatalf("userdir.State() = %v, want a refusal naming %s", err, home)
	}
	if _, err := os.Lstat(filepath.Join(home, ".local")); !os.IsNotExist(err) {
		t.Fatalf("%s/.local was made (%v)", home, err)
	}
}

// The other user's own state directory is refused as theirs, not with
// "remove it": following that advice deleted their settings.
func TestStateOfAnotherUser(t *testing.T) {
	state := t.TempDir()
	dir := filepath.Join(state, "loopkit")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_STATE_HOME", state)
	otheruser.Owns(t, dir)
	_, err := userdir.State()
	if err == nil || !strings.Contains(err.Error(), dir+" belongs to ") || strings.Contains(err.Error(), "remove it") {
		t.Fatalf("userdir.State() = %v, want a refusal naming %s as another user's", err, dir)
	}
}

// HOME=/root kept by sudo -u, or XDG_RUNTIME_DIR=/run/user/0 kept by su:
// the mkdir's "permission denied" drew a "chmod u+rwX" hint nobody but
// root could follow. A folder of root's this user cannot write is named
// as root's.
func TestStateUnderRootsFolder(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root can write every folder of root's")
	}
	t.Setenv("HOME", "/")
	t.Setenv("XDG_STATE_HOME", "")
	if _, err := os.Lstat("/.local"); err == nil {
		t.Skip("/.local exists here")
	}
	if _, err := userdir.State(); err == nil || !strings.Contains(err.Error(), "/ belongs to root") {
		t.Fatalf("userdir.State() with HOME=/ = %v, want a refusal naming / as root's", err)
	}
}

// XDG_RUNTIME_DIR=/tmp, and another user made /tmp/loopkit a link first:
// the refusal said "remove it", which only its owner can in a sticky
// /tmp. It names the owner instead.
func TestRuntimeLinkOfAnotherUser(t *testing.T) {
	shared := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", shared)
	link := filepath.Join(shared, "loopkit")
	if err := os.Symlink(t.TempDir(), link); err != nil {
		t.Fatal(err)
	}
	otheruser.Owns(t, link)
	_, err := userdir.Runtime()
	if err == nil || !strings.Contains(err.Error(), link+" belongs to ") || strings.Contains(err.Error(), "remove it") {
		t.Fatalf("userdir.Runtime() = %v, want a refusal naming %s as another user's", err, link)
	}
}
