package slots

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestPrepare(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	base := t.TempDir()
	dir := filepath.Join(base, "loopkit")
	if err := Prepare(dir, 3); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "slot.1"), filepath.Join(dir, "slot.3")} {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]os.FileMode{true: 0o700, false: 0o600}[fi.IsDir()]; fi.Mode().Perm() != want {
			t.Fatalf("%s: mode %v under umask 0", p, fi.Mode().Perm())
		}
	}
	if err := Prepare(dir, 3); err != nil { // again: fine
		t.Fatal(err)
	}

	// a directory others may enter, a symlink, a planted slot link: refused
	open := filepath.Join(base, "open")
	os.Mkdir(open, 0o777)
	if err := Prepare(open, 1); err == nil || !strings.Contains(err.Error(), "mode") {
		t.Fatalf("a 0777 directory: %v", err)
	}
	link := filepath.Join(base, "link")
	os.Symlink(dir, link)
	if err := Prepare(link, 1); err == nil {
		t.Fatal("a symlink was used")
	}
	if os.Getuid() == 0 { // root can make a directory another user's
		theirs := filepath.Join(base, "theirs")
		os.Mkdir(theirs, 0o700)
		os.Chown(theirs, 65534, 65534)
		if err := Prepare(theirs, 1); err == nil || !strings.Contains(err.Error(), "another user") {
			t.Fatalf("another user's directory: %v", err)
		}
	}
	target := filepath.Join(base, "target")
	os.Symlink(target, filepath.Join(dir, "slot.4"))
	if err := Prepare(dir, 4); err == nil {
		t.Fatal("a symlinked slot was used")
	}
	if _, err := os.Lstat(target); !os.IsNotExist(err) {
		t.Fatal("the slot link's target was created")
	}
}

// A runtime directory on a file system that ignores chmod (exFAT: every
// file 0777) is refused saying so and what to set, not "chmod 700 it",
// which would change nothing.
func TestPrepareWithoutModes(t *testing.T) {
	chmod = func(p string, _ os.FileMode) error { return os.Chmod(p, 0o777) }
	t.Cleanup(func() { chmod = os.Chmod })
	err := Prepare(filepath.Join(t.TempDir(), "loopkit"), 1)
	if err == nil || !strings.Contains(err.Error(), "keeps no file modes") || !strings.Contains(err.Error(), "XDG_RUNTIME_DIR") || strings.Contains(err.Error(), "chmod 700") {
		t.Fatalf("err %v", err)
	}
}
