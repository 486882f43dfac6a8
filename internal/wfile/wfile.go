// Package wfile is the one seam every write of a record and of a step's
// spool goes through. In production a File is an *os.File; a test sets a
// Fault to fail chosen writes and syncs (EIO, ENOSPC) and checks that the
// error reaches the caller and the store stays as it was.
package wfile

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// Op is what a Fault is asked about.
type Op string

const (
	Write Op = "write" // a Write, WriteString or ReadFrom of a file
	Sync  Op = "sync"  // an fsync of a file or a directory
	Chmod Op = "chmod" // a Chmod of a file (FAT refuses it)
)

var fault atomic.Pointer[func(Op, string) error]

// SetFault makes f decide every later write and sync (nil: none), and
// returns a func that restores the previous one. Tests only.
func SetFault(f func(op Op, path string) error) (restore func()) {
	var p *func(Op, string) error
	if f != nil {
		p = &f
	}
	old := fault.Swap(p)
	return func() { fault.Store(old) }
}

// Check is the injected error for op on path, or nil: for a write site
// that does not go through a File (a directory's fsync).
func Check(op Op, path string) error {
	if f := fault.Load(); f != nil {
		if err := (*f)(op, path); err != nil {
			return &os.PathError{Op: string(op), Path: path, Err: err}
		}
	}
	return nil
}

// File is an *os.File whose writes and syncs pass the Fault first.
type File struct{ *os.File }

// OpenFile is os.OpenFile returning a File (through Open).
func OpenFile(name string, flag int, perm os.FileMode) (*File, error) {
	f, err := Open(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &File{f}, nil
}

// Open is os.OpenFile for a file or a directory loopkit reads, writes or
// fsyncs with blocking calls: the descriptor is not offered to the
// netpoller, which refuses regular files and directories anyway, after
// four more system calls an open (two O_NONBLOCK flips and a failed
// epoll_ctl; a record opens some 30 such files). A flag with O_NONBLOCK
// (a spool file that may be a FIFO) is os.OpenFile's.
func Open(name string, flag int, perm os.FileMode) (*os.File, error) {
	if flag&syscall.O_NONBLOCK != 0 {
		return os.OpenFile(name, flag, perm)
	}
	for {
		fd, err := syscall.Open(name, flag|syscall.O_CLOEXEC, uint32(perm.Perm()))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: name, Err: err}
		}
		return os.NewFile(uintptr(fd), name), nil
	}
}

// CreateTemp is os.CreateTemp (a new file, mode 0600, the last * of
// pattern a random number) returning a File, opened through Open.
func CreateTemp(dir, pattern string) (*File, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	prefix, suffix := pattern, ""
	if i := strings.LastIndexByte(pattern, '*'); i >= 0 {
		prefix, suffix = pattern[:i], pattern[i+1:]
	}
	for try := 0; ; try++ {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10)+suffix)
		f, err := OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if os.IsExist(err) && try < 10000 {
			continue
		}
		return f, err
	}
}

func (f *File) Write(p []byte) (int, error) {
	if err := Check(Write, f.Name()); err != nil {
		return 0, err
	}
	return f.File.Write(p)
}

func (f *File) WriteString(s string) (int, error) { return f.Write([]byte(s)) }

// ReadFrom keeps os.File's copy_file_range for io.Copy.
func (f *File) ReadFrom(r io.Reader) (int64, error) {
	if err := Check(Write, f.Name()); err != nil {
		return 0, err
	}
	return f.File.ReadFrom(r)
}

func (f *File) Chmod(mode os.FileMode) error {
	if err := Check(Chmod, f.Name()); err != nil {
		return err
	}
	return f.File.Chmod(mode)
}

func (f *File) Sync() error {
	if err := Check(Sync, f.Name()); err != nil {
		return err
	}
	return f.File.Sync()
}

// WriteFile is os.WriteFile through the seam.
func WriteFile(name string, data []byte, perm os.FileMode) error {
	f, err := OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	return fill(f, data)
}

// WriteNew writes data to a new file name, refusing one that is there,
// a link included (O_EXCL): a temporary file or a lock of loopkit's own.
// A file it made but could not fill is removed: a half file under its
// name would pass as whole.
func WriteNew(name string, data []byte, perm os.FileMode) error {
	f, err := OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, perm)
	if err != nil {
		return err
	}
	if err := fill(f, data); err != nil {
		os.Remove(name)
		return err
	}
	return nil
}

// fill writes data to f and closes it.
func fill(f *File, data []byte) error {
	_, err := f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// SyncDir fsyncs a directory, so that the names created or renamed in it
// persist.
func SyncDir(dir string) error {
	if err := Check(Sync, dir); err != nil {
		return err
	}
	d, err := Open(dir, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// WriteSynced writes data to a new file name (as WriteNew) and fsyncs it
// before it is closed; a file it made but could not fill is removed.
func WriteSynced(name string, data []byte, perm os.FileMode) error {
	f, err := OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}
