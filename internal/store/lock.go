package store

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// ErrLocked is returned by a non-blocking lock attempt on a held lock.
var ErrLocked = errors.New("lock is held by another process")

// Lock is a held flock on a lock file. The kernel drops it when the process
// dies, even on SIGKILL, so a crashed writer never leaves a run locked.
type Lock struct{ f *os.File }

// LockFile takes an flock on path (created if missing, never deleted).
// exclusive picks LOCK_EX over LOCK_SH; wait=false fails with ErrLocked.
func LockFile(path string, exclusive, wait bool) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, FileMode)
	if err != nil {
		return nil, fmt.Errorf("open lock: %w", err)
	}
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	if !wait {
		how |= unix.LOCK_NB
	}
	for {
		err = unix.Flock(int(f.Fd()), how)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &Lock{f: f}, nil
}

// Unlock releases the lock; it is safe on a nil lock.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the descriptor drops the flock
	l.f = nil
	return err
}

// LockAppend takes the run's exclusive append lock, waiting for it.
func (s *Store) LockAppend(id string) (*Lock, error) {
	return LockFile(s.RunPath(id, AppendLock), true, true)
}

// LockLive takes the run's shared live lock, marking the run as being worked on.
func (s *Store) LockLive(id string) (*Lock, error) {
	return LockFile(s.RunPath(id, LiveLock), false, true)
}

// IsLive reports whether some process holds the run's live lock: it tries the
// lock exclusively without waiting, as loop-clean does.
func (s *Store) IsLive(id string) (bool, error) {
	path := s.RunPath(id, LiveLock)
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	l, err := LockFile(path, true, false)
	if errors.Is(err, ErrLocked) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	l.Unlock()
	return false, nil
}
