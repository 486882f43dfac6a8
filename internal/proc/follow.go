package proc

import (
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// follower reads a spool file while the child writes it, for whoever wants
// the stream live (the agent's parser, a terminal). It polls: quickly
// while bytes come, backing off to followIdle when none do, so a quiet
// agent costs a few reads a second and a chatty one is seen within
// milliseconds.
type follower struct {
	f    *os.File
	tail *tailBuffer // every byte, never failing
	tee  io.Writer   // dropped after its first failed write
	off  int64
	// dataEnd, once a hole is found (findHole), is where reading stops; -1
	// before.
	dataEnd int64
	stop    chan struct{}
	done    chan struct{}
	// The child's failed writes are its own; the one we can see is a full
	// file system: then the stream is being lost, and the agent should
	// spend no more (as when our own copy failed).
	failed chan struct{}
	err    error
}

const (
	followBusy  = 2 * time.Millisecond
	followIdle  = 200 * time.Millisecond
	followCheck = time.Second // how often the file system's room is looked at
)

func newFollower(f *os.File, tail *tailBuffer, tee io.Writer) *follower {
	return &follower{f: f, tail: tail, tee: tee, dataEnd: -1, stop: make(chan struct{}), done: make(chan struct{}), failed: make(chan struct{})}
}

// spoolFull says whether the file system under f has no room left for the
// child's writes: none at all for root, which may use the blocks kept back
// for it (a CI container's disk at 96% still takes its writes), none
// outside them for anyone else. A variable, so tests can fill a file system.
var spoolFull = func(f *os.File) bool {
	var st unix.Statfs_t
	if unix.Fstatfs(int(f.Fd()), &st) != nil {
		return false
	}
	if os.Geteuid() == 0 {
		return st.Bfree == 0
	}
	return st.Bavail == 0
}

func (fl *follower) run() {
	defer close(fl.done)
	buf := make([]byte, 256<<10)
	wait := followBusy
	t := time.NewTimer(wait)
	defer t.Stop()
	checked := time.Now()
	for {
		if fl.read(buf, -1) {
			wait = followBusy
		} else {
			wait = min(2*wait, followIdle)
		}
		if now := time.Now(); fl.err == nil && now.Sub(checked) >= followCheck {
			checked = now
			if spoolFull(fl.f) {
				fl.err = fmt.Errorf("spool: write %s: %w", fl.f.Name(), syscall.ENOSPC)
				close(fl.failed)
			}
		}
		t.Reset(wait)
		select {
		case <-fl.stop:
			// The child and its group are gone: the stream is what the
			// file holds now. A stray writer that left the group cannot
			// keep the reading going (Result.StrayWriter).
			if fi, err := fl.f.Stat(); err == nil {
				fl.read(buf, fi.Size())
			}
			return
		case <-t.C:
		}
	}
}

// read passes on what the file holds past the offset, up to end (-1: its
// end now), and says whether there was anything.
func (fl *follower) read(buf []byte, end int64) bool {
	got := false
	from := fl.off // where the data's end was last asked from
	for {
		if fl.dataEnd >= 0 && (end < 0 || fl.dataEnd < end) {
			end = fl.dataEnd
		}
		if end >= 0 && fl.off >= end {
			break
		}
		b := buf
		if end >= 0 && int64(len(b)) > end-fl.off {
			b = b[:end-fl.off]
		}
		n, err := fl.f.ReadAt(b, fl.off)
		if n > 0 {
			got = true
			fl.off += int64(n)
			fl.tail.Write(b[:n])
			if fl.tee != nil {
				if _, werr := fl.tee.Write(b[:n]); werr != nil {
					fl.tee = nil
				}
			}
		}
		if err != nil || n == 0 {
			break // io.EOF: the child has written no more yet
		}
		if fl.off-from >= holeCheck {
			fl.findHole(from)
			from = fl.off
		}
	}
	return got
}

// holeCheck is how much is read before asking where the file's data ends:
// an agent that grew its stdout with ftruncate made zeros nobody wrote, of
// any size, and reading them would keep the step going after the agent
// ended. Asked only that seldom: on ZFS the question costs a sync.
const holeCheck = 64 << 20

// findHole sets dataEnd at the first hole past from, if the file has one
// before its end: what follows it is no stream the child wrote.
func (fl *follower) findHole(from int64) {
	fi, err := fl.f.Stat()
	if err != nil {
		return
	}
	h, err := unix.Seek(int(fl.f.Fd()), from, unix.SEEK_HOLE)
	if err == nil && h < fi.Size() && (fl.dataEnd < 0 || h < fl.dataEnd) {
		fl.dataEnd = h
	}
}

// finish reads what is left once the child's group is gone.
func (fl *follower) finish() {
	select {
	case <-fl.stop:
	default:
		close(fl.stop)
	}
	<-fl.done
}
