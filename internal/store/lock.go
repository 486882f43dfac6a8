package store

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/loopkit/loopkit/internal/procrec"
	"github.com/loopkit/loopkit/internal/record"
)

// ErrLocked is returned by a non-blocking lock attempt on a held lock.
var ErrLocked = errors.New("lock is held by another process")

// lockRetries bounds how often a lock is taken again after its file was
// replaced between the open and the flock; each retry means a run was
// deleted and created again meanwhile, so a few are plenty.
const lockRetries = 100

// Lock is a held flock on a lock file. The kernel drops it when the process
// dies, even on SIGKILL, so a crashed writer never leaves a run locked.
type Lock struct{ f *os.File }

// LockFile takes an flock on path, creating the file (0600) if missing; it
// is never renamed or deleted while its directory exists. exclusive picks
// LOCK_EX over LOCK_SH; wait=false fails with ErrLocked. A missing directory
// is an error wrapping os.ErrNotExist. A symlink is never followed.
//
// After the lock is granted it checks that path still names the locked
// file: a run deleted (renamed to a tombstone) between the open and the
// flock would otherwise leave two processes each holding "the" lock of the
// run, one on the dead copy. When the check fails the lock is taken again.
// This is the one place the toolkit takes a lock.
func LockFile(path string, exclusive, wait bool) (*Lock, error) {
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	if !wait {
		how |= unix.LOCK_NB
	}
	for range lockRetries {
		fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(FileMode))
		if err != nil {
			return nil, &os.PathError{Op: "open lock", Path: path, Err: err}
		}
		f := os.NewFile(uintptr(fd), path)
		if err := flock(fd, how); err != nil {
			f.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				return nil, ErrLocked
			}
			if noLocks(err) {
				return nil, lacking(ErrNoLocks, path, err)
			}
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		same, err := stillLinked(fd, path)
		if same {
			return &Lock{f: f}, nil
		}
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("lock %s: replaced %d times while locking it", path, lockRetries)
}

// LockFileWithin is LockFile(path, true, false) tried again until it is
// granted or d has passed (then ErrLocked): an flock cannot be given a
// timeout. busy, when not nil, is called each time the lock is found held.
func LockFileWithin(path string, d time.Duration, busy func()) (*Lock, error) {
	deadline := time.Now().Add(d)
	for {
		l, err := LockFile(path, true, false)
		if err == nil || !errors.Is(err, ErrLocked) || time.Now().After(deadline) {
			return l, err
		}
		if busy != nil {
			busy()
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ProbeLock reports whether some process holds a lock on path, by trying
// it exclusively without waiting. It creates nothing: a missing file (or a
// symlink, never opened) is a free lock.
func ProbeLock(path string) (held bool, err error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err == unix.ENOENT || err == unix.ELOOP || err == unix.ENOTDIR {
		return false, nil
	}
	if err != nil {
		return false, &os.PathError{Op: "open lock", Path: path, Err: err}
	}
	defer unix.Close(fd)
	err = flock(fd, unix.LOCK_EX|unix.LOCK_NB)
	if err == unix.EWOULDBLOCK {
		return true, nil
	}
	if noLocks(err) {
		return false, lacking(ErrNoLocks, path, err)
	}
	if err != nil {
		return false, fmt.Errorf("lock %s: %w", path, err)
	}
	return false, nil
}

// sysFlock is unix.Flock (a test stands in for a file system without locks).
var sysFlock = unix.Flock

func flock(fd, how int) error {
	for {
		err := sysFlock(fd, how)
		if err != unix.EINTR {
			return err
		}
	}
}

// stillLinked reports whether path names the file open as fd (same device
// and inode, path not a symlink). A path that is gone is not an error: the
// caller retries and the next open reports it.
func stillLinked(fd int, path string) (bool, error) {
	var held, now unix.Stat_t
	if err := unix.Fstat(fd, &held); err != nil {
		return false, fmt.Errorf("stat lock %s: %w", path, err)
	}
	err := unix.Lstat(path, &now)
	if err == unix.ENOENT || err == unix.ENOTDIR {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("stat lock %s: %w", path, err)
	}
	return held.Dev == now.Dev && held.Ino == now.Ino, nil
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

// LockAppend takes the run's exclusive append lock, waiting for it. Every
// change to a run, its deletion included, happens under this lock. A run
// that does not exist (or was deleted while waiting) is ErrNoSuchRun.
func (s *Store) LockAppend(id string) (*Lock, error) {
	return s.lockRun(id, AppendLock, true, true)
}

// TryLockAppend is LockAppend without waiting (ErrLocked when held).
func (s *Store) TryLockAppend(id string) (*Lock, error) {
	return s.lockRun(id, AppendLock, true, false)
}

// LockLive takes the run's shared live lock, marking the run as being worked on.
func (s *Store) LockLive(id string) (*Lock, error) {
	return s.lockRun(id, LiveLock, false, true)
}

// TryLockLiveExclusive takes the live lock exclusively without waiting: it
// succeeds only when nobody works on the run (loop-clean before deleting).
func (s *Store) TryLockLiveExclusive(id string) (*Lock, error) {
	return s.lockRun(id, LiveLock, true, false)
}

func (s *Store) lockRun(id, name string, exclusive, wait bool) (*Lock, error) {
	if err := ValidRunID(id); err != nil {
		return nil, err
	}
	if err := s.checkRunDir(id); err != nil {
		return nil, err
	}
	l, err := LockFile(s.RunPath(id, name), exclusive, wait)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNoSuchRun, id)
	}
	return l, err
}

// checkRunDir refuses a run whose directory is not a real directory (a
// symlink out of the store, say): nothing is ever written through it.
func (s *Store) checkRunDir(id string) error {
	fi, err := os.Lstat(s.RunDir(id))
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w: %s", ErrNoSuchRun, id)
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("run %s: %s is not a directory (a symlink?); refusing to use it", id, s.RunDir(id))
	}
	return nil
}

// IsLive reports whether some process holds the run's live lock.
func (s *Store) IsLive(id string) (bool, error) {
	return ProbeLock(s.RunPath(id, LiveLock))
}

// CheckRun refuses a run whose directory, or one of the directories the
// toolkit makes in it, is a symlink or not a directory: writes, repairs
// and deletions below it would follow the link.
func (s *Store) CheckRun(id string) error {
	if err := s.checkRunDir(id); err != nil {
		return err
	}
	// "git" is the run's private git directory (internal/gitstore)
	for _, d := range []string{IterationsDir, AttemptsDir, ContextDir, VerifyDir, "git"} {
		if err := realDir(s.RunPath(id, d)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("run %s: %w", id, err)
		}
	}
	return nil
}

// SetNote replaces the lock file's contents with note (who holds it), for
// the process that finds the lock taken: the lock itself is the flock.
func (l *Lock) SetNote(note string) error {
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	_, err := l.f.WriteAt([]byte(note), 0)
	return err
}

// Interrupted reports a run marked running, or queued, whose driver is
// gone (killed before it could mark the run): a driven run whose driver
// lock nobody holds. `loop resume` goes on with it. A run of pipeline
// commands has no driver, and is never interrupted.
func (s *Store) Interrupted(r *record.Run) bool {
	if !Unended(r.Status) || len(r.Settings.Agent) == 0 {
		return false
	}
	return !s.Held(r.RunID)
}

// Unended: the status of a run a driver holds until it ends, running or
// queued (a queued run's driver holds it while it waits for a slot).
func Unended(status string) bool { return status == record.RunRunning || status == record.RunQueued }

// Held reports whether a driver holds the run: its driver.lock is locked,
// or a driver loopkit recorded taking it is alive. The lock file is the
// agent's to remove or replace while the driver holds the old one: a
// recorded driver alive drives the run whatever it says, and one that
// cannot be opened (a socket, no read permission) says nothing.
func (s *Store) Held(id string) bool {
	held, _ := ProbeLock(s.RunPath(id, DriverLock))
	return held || s.DriverAlive(id)
}

// DriverAlive reports whether a driver loopkit recorded taking the run
// (procrec, outside the workspace) is alive, still that process.
func (s *Store) DriverAlive(id string) bool {
	return len(procrec.Drivers(s.RunDir(id))) > 0
}
