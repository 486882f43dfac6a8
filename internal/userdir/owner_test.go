package userdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// someoneElses makes dir another user's to this process: chowned away
// under root; else this process plays a user other than its own.
func someoneElses(t *testing.T, dir string) {
	t.Helper()
	if os.Getuid() == 0 {
		if err := os.Chown(dir, 4242, 4242); err != nil {
			t.Skip("cannot chown:", err)
		}
		return
	}
	real := os.Getuid()
	UID = func() int { return real + 1 }
	t.Cleanup(func() { UID = os.Getuid })
}

// A HOME kept from another user (sudo without -H, su without -) made
// loopkit create ~/.local/state/loopkit in that user's home, owned by the
// caller: root's folders there locked the owner out of their own
// ~/.local. Now nothing is made and the line names the folder and why.
func TestStateInAnotherUsersHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("XDG_RUNTIME_DIR", "")
	someoneElses(t, home)
	_, err := State()
	if err == nil || !strings.Contains(err.Error(), home+" belongs to ") || !strings.Contains(err.Error(), "kept by sudo or su?)") {
		t.Fatalf("State() = %v, want a refusal naming %s", err, home)
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
	someoneElses(t, dir)
	_, err := State()
	if err == nil || !strings.Contains(err.Error(), dir+" belongs to ") || strings.Contains(err.Error(), "remove it") {
		t.Fatalf("State() = %v, want a refusal naming %s as another user's", err, dir)
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
	if _, err := State(); err == nil || !strings.Contains(err.Error(), "/ belongs to root") {
		t.Fatalf("State() with HOME=/ = %v, want a refusal naming / as root's", err)
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
	if os.Getuid() == 0 {
		if err := os.Lchown(link, 4242, 4242); err != nil {
			t.Skip("cannot chown:", err)
		}
	} else {
		someoneElses(t, shared)
	}
	_, err := Runtime()
	if err == nil || !strings.Contains(err.Error(), link+" belongs to ") || strings.Contains(err.Error(), "remove it") {
		t.Fatalf("Runtime() = %v, want a refusal naming %s as another user's", err, link)
	}
}
