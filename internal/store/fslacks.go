package store

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"
)

// ErrNoLocks means a lock file's file system gives no file locks (NFS
// without its lock daemon, some FUSE and SMB mounts): loopkit's records
// would not stay whole there, so it refuses.
var ErrNoLocks = errors.New("no file locks")

// ErrNoModes means the store's file system cannot make a file private
// (FAT, exFAT): transcripts there could be read by others.
var ErrNoModes = errors.New("no file modes")

// noLocks reports a flock error that means the file system has no locks.
func noLocks(err error) bool {
	return errors.Is(err, syscall.ENOLCK) || errors.Is(err, errors.ErrUnsupported)
}

// noModes reports an error of chmod on a file of ours that means the file
// system keeps no modes (vfat says EPERM, fusefat ENOSYS).
func noModes(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Op == "chmod" &&
		(errors.Is(err, syscall.EPERM) || errors.Is(err, errors.ErrUnsupported))
}

// nearest calls found on path, then on each parent, until it says yes:
// a store not made yet is on its nearest existing parent's file system.
func nearest(path string, found func(string) bool) bool {
	for !found(path) {
		parent := filepath.Dir(path)
		if parent == path {
			return false
		}
		path = parent
	}
	return true
}

// lacking words what path's file system lacks and the fix, in one line.
func lacking(kind error, path string, err error) error {
	subject, lack := "lock "+path+": the file system", "gives no file locks"
	fix := "keep the store (--store DIR or LOOP_STORE) and loopkit's folders on a local file system"
	if kind == ErrNoModes {
		subject, lack = "store "+path+": the file system", "cannot make files private"
		fix = "put the store on another file system (--store DIR or LOOP_STORE)"
	}
	if t := FSType(path); t != "" {
		subject += " (" + t + ")"
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		err = errno
	}
	return &lacksError{fmt.Sprintf("%s %s (%v): %s", subject, lack, err, fix), kind}
}

// lacksError is lacking's error: its own line, and errors.Is of its kind.
type lacksError struct {
	msg  string
	kind error
}

func (e *lacksError) Error() string { return e.msg }
func (e *lacksError) Unwrap() error { return e.kind }
