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

// overlayfs (Docker's overlay2) cannot rename a directory of a lower
// layer (EXDEV): a run in an image's layer is still deleted, whole, and
// a clean killed half-way leaves what the next one finishes. A tombstone
// never takes a run of the same name that has its run.json.
func TestDeleteWhereTheRunCannotMove(t *testing.T) {
	s := &Store{Root: filepath.Join(t.TempDir(), ".loop")}
	for _, id := range []string{"r", "k", "new"} {
		if err := s.CreateRun(NewRun(id, id, 1)); err != nil {
			t.Fatal(err)
		}
	}
	d, err := OpenDeleter(s)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	d.rename = func(oldname, newname string) error {
		if fi, err := d.root.Lstat(oldname); err == nil && fi.IsDir() {
			return &os.LinkError{Op: "renameat", Old: oldname, New: newname, Err: syscall.EXDEV}
		}
		return d.root.Rename(oldname, newname)
	}
	h, _ := s.ReadRunHead("r")
	if n, err := d.Delete("r", h.UpdatedAt); err != nil || n == 0 {
		t.Fatalf("delete: %d bytes, %v", n, err)
	}
	if _, err := os.Lstat(s.RunDir("r")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("run r still there: %v", err)
	}

	// killed between marking k and removing it; "new" has a stale tombstone
	if _, err := d.markDeleting("k"); err != nil {
		t.Fatal(err)
	}
	if s.RunExists("k") {
		t.Error("k still reads as a run once marked")
	}
	if err := os.Mkdir(filepath.Join(s.RunsDir(), TombPrefix+"new-1"), DirMode); err != nil {
		t.Fatal(err)
	}
	if n, _, _, err := d.FinishTombstones(); err != nil || n != 2 {
		t.Fatalf("finish: %d, %v", n, err)
	}
	names, _ := os.ReadDir(s.RunsDir())
	if len(names) != 1 || names[0].Name() != "new" || !s.RunExists("new") {
		t.Errorf("runs/ holds %v, want only the run new", names)
	}
}
