package store

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// On NFS or FUSE (sshfs, exfat-fuse) a file removed while open is renamed
// to .nfs* or .fuse_hidden*, so its directory cannot be removed: the
// deleter must have closed the run's lock files before it removes the
// tombstone. The stand-in removal fails as such a file system would.
func TestDeleteClosesLocksBeforeRemoving(t *testing.T) {
	s := &Store{Root: filepath.Join(t.TempDir(), ".loop")}
	if err := s.CreateRun(NewRun("r", "r", 1)); err != nil {
		t.Fatal(err)
	}
	h, err := s.ReadRunHead("r")
	if err != nil {
		t.Fatal(err)
	}
	d, err := OpenDeleter(s)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	d.removeAll = func(name string) error {
		for _, lock := range []string{AppendLock, LiveLock} {
			held, err := ProbeLock(filepath.Join(s.RunsDir(), name, lock))
			if err != nil || held {
				return &os.PathError{Op: "RemoveAll", Path: name, Err: syscall.ENOTEMPTY}
			}
		}
		return d.root.RemoveAll(name)
	}
	if _, err := d.Delete("r", h.UpdatedAt); err != nil {
		t.Fatalf("delete: %v", err)
	}
	names, _ := os.ReadDir(s.RunsDir())
	if len(names) != 0 {
		t.Errorf("runs/ still holds %v", names[0].Name())
	}
	if _, err := os.Lstat(s.RunDir("r")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("run still there: %v", err)
	}
}
