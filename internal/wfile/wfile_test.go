package wfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// WriteNew never writes over a file or through a link that is there, and
// leaves nothing under the name when the write fails (ENOSPC here).
func TestWriteNew(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "new")
	if err := WriteNew(p, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != "one" {
		t.Fatalf("read back %q, %v", b, err)
	}
	if err := WriteNew(p, []byte("two"), 0o600); !errors.Is(err, os.ErrExist) {
		t.Fatalf("WriteNew over a file = %v, want ErrExist", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "target"), link); err != nil {
		t.Fatal(err)
	}
	if err := WriteNew(link, []byte("x"), 0o600); err == nil {
		t.Fatal("WriteNew through a dangling link succeeded")
	}
	if _, err := os.Lstat(filepath.Join(dir, "target")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the link's target was made: %v", err)
	}
	defer SetFault(func(op Op, path string) error {
		if op == Write {
			return syscall.ENOSPC
		}
		return nil
	})()
	full := filepath.Join(dir, "full")
	if err := WriteNew(full, []byte("x"), 0o600); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("WriteNew on a full disk = %v, want ENOSPC", err)
	}
	if _, err := os.Lstat(full); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a half file was left: %v", err)
	}
}
