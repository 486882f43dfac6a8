// Package safefile is the one way loopkit reads a file the agent could have
// touched: the usage file, the prompt and plan, ratelimit.json, spool
// entries, iteration files, the export checkpoint. Such a file may be a
// FIFO (a reader would wait forever), a link (to a secret outside the
// store, or to /dev/zero), or huge; each of these is refused with an error
// naming the file, never waited on or followed.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// DocMax caps a text document loopkit reads whole: a prompt, a template,
// a plan, a report. Far above any real one, far below what would hurt.
const DocMax = 16 << 20

// ErrTooBig is wrapped by ReadFile's error for a file past its cap.
var ErrTooBig = errors.New("file too big")

// Open opens path read-only: a final symlink is refused (O_NOFOLLOW), the
// open never waits (O_NONBLOCK: a FIFO without a writer would block it),
// and anything but a regular file (FIFO, device, socket, directory) is
// refused after the open, checked on the descriptor itself.
func Open(path string) (*os.File, error) { return OpenFile(path, os.O_RDONLY, 0) }

// ErrLinked is wrapped by OpenFile's error for a file opened to be written
// that has another name too: a hard link, which may be a file outside the
// store (the agent can link one of the person's files there).
var ErrLinked = errors.New("has another name (a hard link)")

// OpenFile is Open with other flags, for writes: never through a final
// link, never into a FIFO or a device, never into a file with another
// name (ErrLinked; O_TRUNC cuts only once that is checked). A file it
// creates gets perm.
func OpenFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	write := flag&(os.O_WRONLY|os.O_RDWR) != 0
	trunc := write && flag&os.O_TRUNC != 0
	f, err := open(path, flag&^os.O_TRUNC|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, perm)
	if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK) {
		return nil, fmt.Errorf("%s is a symlink; loopkit follows none here: move it away", path)
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file (%s); move it away", path, kind(fi.Mode()))
	}
	if err == nil && write && linked(fi) {
		err = fmt.Errorf("%s %w; loopkit writes into no such file: move it away", path, ErrLinked)
	}
	if err == nil && trunc {
		err = f.Truncate(0)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// open opens path with O_NONBLOCK, so that the open itself never waits
// (a FIFO without a writer), then clears it before anything is read or
// written: regular files never block, and reads stay plain on filesystems
// that would honour it. The descriptor is not offered to the netpoller,
// which refuses regular files anyway after an epoll_ctl and two fcntl
// calls (what os.OpenFile does); a FIFO or device is only looked at by
// OpenFile, with fstat, and closed.
func open(path string, flag int, perm os.FileMode) (*os.File, error) {
	for {
		fd, err := syscall.Open(path, flag|syscall.O_NONBLOCK, uint32(perm.Perm()))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		// F_SETFL sets only the status flags: of flag, O_APPEND stays
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, flag&syscall.O_APPEND); err != nil {
			syscall.Close(fd)
			return nil, &os.PathError{Op: "fcntl", Path: path, Err: err}
		}
		return os.NewFile(uintptr(fd), path), nil
	}
}

// ReadFile reads the whole of the regular file at path, opened as Open
// does, refusing one of more than max bytes (ErrTooBig). It reads at most
// max+1 bytes whatever the file's size says, so a file whose size lies
// (/proc files say 0) cannot make it read without end.
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, path, max)
}

// ReadAll reads r to its end, refusing more than max bytes (ErrTooBig,
// naming name).
func ReadAll(r io.Reader, name string, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: more than %d bytes: %w", name, max, ErrTooBig)
	}
	return data, nil
}

// linked: the file has a name besides the one opened.
func linked(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || st.Nlink != 1
}

func kind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return m.Type().String()
}

// Version tells one version of a file from another: its device and inode,
// size and modification time. A file replaced by a rename (every atomic
// write) or rewritten in place has another, so a process may keep what it
// decoded from a file while the file's version is the same.
type Version struct {
	dev, ino uint64
	size     int64
	mtime    time.Time
}

// VersionOf is the version of the file fi describes; ok is false where the
// system tells no inode.
func VersionOf(fi os.FileInfo) (v Version, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return Version{}, false
	}
	return Version{uint64(st.Dev), uint64(st.Ino), fi.Size(), fi.ModTime()}, true
}
