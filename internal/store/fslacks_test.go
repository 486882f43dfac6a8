package store

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/loopkit/loopkit/internal/wfile"
)

// A store's file system without file locks (NFS without its lock daemon
// says ENOLCK, some FUSE and SMB mounts ENOTSUP) is refused in one line
// naming the file system and the fix, never taken as "held" or ignored.
func TestLockWithoutLocksNamesFileSystem(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.ENOLCK, syscall.EOPNOTSUPP, syscall.ENOSYS} {
		sysFlock = func(int, int) error { return errno }
		t.Cleanup(func() { sysFlock = realFlock })
		path := filepath.Join(t.TempDir(), "append.lock")
		_, err := LockFile(path, true, false)
		_, perr := ProbeLock(path)
		for _, err := range []error{err, perr} {
			if !errors.Is(err, ErrNoLocks) {
				t.Fatalf("%v: err %v, want ErrNoLocks", errno, err)
			}
			oneLine(t, err.Error(), "lock "+path+": the file system (", "gives no file locks", "LOOP_STORE")
		}
	}
}

// A store on FAT (vfat says EPERM to a chmod, fusefat ENOSYS) cannot keep
// transcripts private: refused in one line naming the file system and the
// fix, not with a chmod of a temporary file's name.
func TestStoreWithoutModesNamesFileSystem(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.EPERM, syscall.ENOSYS} {
		t.Cleanup(wfile.SetFault(func(op wfile.Op, _ string) error {
			if op == wfile.Chmod {
				return errno
			}
			return nil
		}))
		s := &Store{Root: filepath.Join(t.TempDir(), ".loop")}
		err := s.Init()
		if !errors.Is(err, ErrNoModes) {
			t.Fatalf("%v: err %v, want ErrNoModes", errno, err)
		}
		oneLine(t, err.Error(), "store "+s.Root+": the file system (", "cannot make files private", "--store DIR or LOOP_STORE")
		if strings.Contains(err.Error(), ".tmp-") {
			t.Errorf("names a temporary file: %s", err)
		}
	}
}

var realFlock = sysFlock

func oneLine(t *testing.T, msg string, want ...string) {
	t.Helper()
	if strings.Contains(msg, "\n") {
		t.Errorf("not one line: %q", msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("%q lacks %q", msg, w)
		}
	}
}
