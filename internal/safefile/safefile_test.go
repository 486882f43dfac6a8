package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadFileRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(dir, "secret")
	os.WriteFile(secret, []byte("key"), 0o600)
	link := filepath.Join(dir, "link")
	os.Symlink(secret, link)
	zero := filepath.Join(dir, "zero")
	os.Symlink("/dev/zero", zero)
	for name, want := range map[string]string{
		fifo:        "FIFO",
		link:        "symlink",
		zero:        "symlink",
		"/dev/zero": "character device",
		dir:         "directory",
	} {
		data, err := ReadFile(name, 1<<20) // a FIFO must not block here
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadFile(%s) = %q, %v; want an error saying %q", name, data, err, want)
		}
	}
	if _, err := ReadFile(filepath.Join(dir, "none"), 10); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v, want ErrNotExist", err)
	}
}

func TestReadFileCapsWhatItReads(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("0123456789"), 0o600)
	if data, err := ReadFile(p, 10); err != nil || string(data) != "0123456789" {
		t.Fatalf("at the cap: %q, %v", data, err)
	}
	if _, err := ReadFile(p, 9); !errors.Is(err, ErrTooBig) {
		t.Fatalf("past the cap: %v, want ErrTooBig", err)
	}
	// A /proc file says its size is 0: the cap holds on what is read.
	if _, err := os.Stat("/proc/self/environ"); err == nil && len(os.Environ()) > 0 {
		if _, err := ReadFile("/proc/self/environ", 1); !errors.Is(err, ErrTooBig) {
			t.Fatalf("/proc/self/environ past the cap: %v", err)
		}
	}
}

func TestOpenFileWritesNeverThroughALink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("keep"), 0o600)
	link := filepath.Join(dir, "link")
	os.Symlink(target, link)
	if f, err := OpenFile(link, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600); err == nil {
		f.Close()
		t.Fatal("wrote through a link")
	}
	fifo := filepath.Join(dir, "fifo")
	syscall.Mkfifo(fifo, 0o600)
	if f, err := OpenFile(fifo, os.O_WRONLY, 0o600); err == nil {
		f.Close()
		t.Fatal("opened a FIFO for writing")
	}
	if data, _ := os.ReadFile(target); string(data) != "keep" {
		t.Fatalf("target now %q", data)
	}
}

// TestVersionOf: a file keeps its version until it is replaced by a rename
// or rewritten.
func TestVersionOf(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	version := func() Version {
		t.Helper()
		fi, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		v, ok := VersionOf(fi)
		if !ok {
			t.Skip("no inode here")
		}
		return v
	}
	if err := os.WriteFile(path, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	first := version()
	if version() != first {
		t.Fatal("the same file has two versions")
	}
	// replaced by a rename, same size and time: another inode
	if err := os.WriteFile(path+".new", []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Lstat(path)
	os.Chtimes(path+".new", fi.ModTime(), fi.ModTime())
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
	renamed := version()
	if renamed == first {
		t.Error("a file renamed over it kept the version")
	}
	// rewritten in place, longer
	if err := os.WriteFile(path, []byte("three"), 0o600); err != nil {
		t.Fatal(err)
	}
	if version() == renamed {
		t.Error("a file rewritten kept the version")
	}
}

// TestOpenFileWritesNoHardLinkedFile: the agent can replace a store file
// by a hard link to a file of the person's; a write (or a truncation)
// through it would change that file.
func TestOpenFileWritesNoHardLinkedFile(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside")
	os.WriteFile(outside, []byte("keep"), 0o600)
	inside := filepath.Join(dir, "inside.jsonl")
	if err := os.Link(outside, inside); err != nil {
		t.Skip(err)
	}
	for _, flag := range []int{os.O_WRONLY | os.O_APPEND, os.O_RDWR, os.O_WRONLY | os.O_CREATE | os.O_TRUNC} {
		f, err := OpenFile(inside, flag, 0o600)
		if err == nil {
			f.Write([]byte("x"))
			f.Close()
			t.Fatalf("flag %#x: opened a hard-linked file for writing", flag)
		}
		if !errors.Is(err, ErrLinked) {
			t.Fatalf("flag %#x: %v, want ErrLinked", flag, err)
		}
	}
	if data, _ := os.ReadFile(outside); string(data) != "keep" {
		t.Fatalf("the linked file now holds %q", data)
	}
	if f, err := Open(inside); err != nil { // reading it is harmless
		t.Fatal(err)
	} else {
		f.Close()
	}
}
