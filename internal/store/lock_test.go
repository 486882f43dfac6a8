package store

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A run deleted (renamed away) and created again while a writer waits for
// its append lock: the writer must end up holding the lock of the run that
// exists, not of the dead copy, or two writers would both hold "the" lock.
func TestLockFollowsTheLinkedFile(t *testing.T) {
	s := &Store{Root: filepath.Join(t.TempDir(), ".loop")}
	if err := s.CreateRun(NewRun("r", "r", 1)); err != nil {
		t.Fatal(err)
	}
	holder, err := os.OpenFile(s.RunPath("r", AppendLock), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Flock(int(holder.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	got := make(chan *Lock, 1)
	go func() {
		l, err := s.LockAppend("r")
		if err != nil {
			t.Error(err)
		}
		got <- l
	}()
	time.Sleep(200 * time.Millisecond) // let it open the old file and block
	if err := os.Rename(s.RunDir("r"), filepath.Join(s.RunsDir(), ".tomb-r")); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateRun(NewRun("r", "r", 2)); err != nil {
		t.Fatal(err)
	}
	holder.Close()
	l := <-got
	if l == nil {
		t.Fatal("no lock")
	}
	defer l.Unlock()
	held, _ := l.f.Stat()
	now, err := os.Lstat(s.RunPath("r", AppendLock))
	if err != nil {
		t.Fatal(err)
	}
	if held.Sys().(*syscall.Stat_t).Ino != now.Sys().(*syscall.Stat_t).Ino {
		t.Fatal("the lock held is on the deleted run's lock file")
	}
}

// Lock files are 0600 and never followed when a symlink.
func TestLockFileNoSymlink(t *testing.T) {
	old := unix.Umask(0)
	defer unix.Umask(old)
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.Symlink(target, filepath.Join(dir, "link"))
	if _, err := LockFile(filepath.Join(dir, "link"), true, false); err == nil {
		t.Fatal("locked through a symlink")
	}
	if _, err := os.Lstat(target); !os.IsNotExist(err) {
		t.Fatal("created the symlink's target")
	}
	l, err := LockFile(filepath.Join(dir, "lock"), true, false)
	if err != nil {
		t.Fatal(err)
	}
	l.Unlock()
	if fi, _ := os.Stat(filepath.Join(dir, "lock")); fi.Mode().Perm() != FileMode {
		t.Fatalf("lock file mode %v under umask 0", fi.Mode().Perm())
	}
}
