package proc

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/loopkit/loopkit/internal/wfile"
)

// capture is one output stream: the spool file handed to the child
// directly (no copy, no pipe a grandchild can hold), read back as it grows
// when someone wants it live; or, without a spool file, a pipe we copy from.
type capture struct {
	path   string
	file   *os.File
	pr, pw *os.File
	tail   *tailBuffer
	tee    io.Writer
	cap    int
	done   chan struct{}
	err    error
	once   sync.Once
	spool  *spoolWriter // the file in the copier, when there is a pipe
	follow *follower    // the file read back, when the child writes it
}

// newCapture makes a capture. A stdout capture hands the child the spool
// file even when the stream is wanted live (an agent's): node CLIs write
// their last lines and exit without waiting for what a pipe did not take,
// and a file takes every write whole; without a spool file its pipe is
// grown for the same reason, as far as a pipe can be.
func newCapture(path string, tee io.Writer, cap int, stdout bool) (*capture, error) {
	c := &capture{path: path, tee: tee, cap: cap}
	if path != "" {
		// read and write: the follower reads at its own offset (pread);
		// append: whatever the child seeks to, it can only add to what
		// was read (a pipe could not be rewound either)
		f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return nil, fmt.Errorf("spool: %w", err)
		}
		c.file = f
		if stdout && tee != nil {
			c.tail = newTailBuffer(cap)
			c.follow = newFollower(f, c.tail, tee)
		}
	}
	if path == "" || (tee != nil && !stdout) {
		pr, pw, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		if stdout {
			growPipe(pw)
		}
		c.pr, c.pw = pr, pw
		c.tail = newTailBuffer(cap)
		if c.file != nil {
			c.spool = &spoolWriter{f: &wfile.File{File: c.file}, failed: make(chan struct{})}
		}
	}
	return c, nil
}

// spoolWriter is the spool file in the copier. Its first failed write
// (EIO, ENOSPC) is kept for Run to stop the child and fail loudly; later
// bytes are dropped, so the pipe is still drained and never blocks the child.
type spoolWriter struct {
	f      *wfile.File
	err    error
	failed chan struct{} // closed on the first failed write
}

func (w *spoolWriter) Write(p []byte) (int, error) {
	if w.err == nil {
		if _, err := w.f.Write(p); err != nil {
			w.err = fmt.Errorf("spool: %w", err)
			close(w.failed)
		}
	}
	return len(p), nil
}

// spoolFailed is closed when a write to the spool file failed (nil: never).
func (c *capture) spoolFailed() <-chan struct{} {
	if c.follow != nil {
		return c.follow.failed
	}
	if c.spool == nil {
		return nil
	}
	return c.spool.failed
}

func (c *capture) childSide() *os.File {
	if c.pw != nil {
		return c.pw
	}
	return c.file
}

func (c *capture) startCopy() {
	if c.follow != nil {
		go c.follow.run()
		return
	}
	if c.pr == nil {
		return
	}
	c.pw.Close() // the child holds its own copy
	c.pw = nil
	c.done = make(chan struct{})
	go func() {
		defer close(c.done)
		ws := []io.Writer{c.tail}
		if c.spool != nil {
			ws = append(ws, c.spool)
		}
		if c.tee != nil {
			ws = append(ws, c.tee)
		}
		buf := make([]byte, 256<<10)
		_, c.err = io.CopyBuffer(io.MultiWriter(ws...), c.pr, buf)
	}()
}

// wait lets the copier drain; a descendant that escaped the group and holds
// the pipe is given grace, then the pipe is closed under it.
func (c *capture) wait(grace time.Duration) {
	if c.follow != nil {
		c.follow.finish()
		return
	}
	if c.done == nil {
		return
	}
	select {
	case <-c.done:
	case <-time.After(grace):
		c.pr.Close()
		<-c.done
	}
}

func (c *capture) finish(res *Result, stdout bool) error {
	if c.spool != nil && c.spool.err != nil {
		return c.spool.err
	}
	if c.follow != nil && c.follow.err != nil {
		return c.follow.err
	}
	var tail []byte
	var total int64
	if c.tail != nil {
		tail, total = c.tail.Tail()
	} else if c.file != nil {
		var err error
		tail, total, err = FileTail(c.path, c.cap)
		if err != nil {
			return fmt.Errorf("spool: %w", err)
		}
	}
	trunc := total > int64(len(tail))
	if stdout {
		res.Stdout, res.StdoutBytes, res.StdoutTrunc = tail, total, trunc
	} else {
		res.Stderr, res.StderrBytes, res.StderrTrunc = tail, total, trunc
	}
	return nil
}

func (c *capture) close() {
	c.once.Do(func() {
		for _, f := range []*os.File{c.file, c.pr, c.pw} {
			if f != nil {
				f.Close()
			}
		}
	})
}

// bestEffort is a live copy that must never block the capture: after its
// first failed write (a closed stderr, a reader gone) it drops everything,
// so the child's pipe keeps being drained into the spool file.
// Both streams' copiers share one, so it writes one chunk at a time: Tee
// may be any writer (a bytes.Buffer lost chunks written at once).
type bestEffort struct {
	mu     sync.Mutex
	w      io.Writer
	failed bool
}

func (b *bestEffort) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.failed {
		if _, err := b.w.Write(p); err != nil {
			b.failed = true
		}
	}
	return len(p), nil
}
