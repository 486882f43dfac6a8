package proc

import (
	"io"
	"sync"

	"github.com/loopkit/loopkit/internal/safefile"
)

// tailBuffer keeps the last max bytes written to it and counts them all, so
// memory stays bounded whatever a child prints. Writes are amortized O(1)
// per byte: the buffer grows to 2*max and then slides its tail to the front.
type tailBuffer struct {
	mu    sync.Mutex
	max   int
	buf   []byte
	total int64
}

func newTailBuffer(max int) *tailBuffer { return &tailBuffer{max: max} }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += int64(len(p))
	if t.max <= 0 {
		return len(p), nil
	}
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return len(p), nil
	}
	if len(t.buf)+len(p) > 2*t.max {
		keep := t.max - len(p)
		copy(t.buf, t.buf[len(t.buf)-keep:])
		t.buf = t.buf[:keep]
	}
	t.buf = append(t.buf, p...)
	return len(p), nil
}

// Tail returns the kept bytes (at most max) and the total written.
func (t *tailBuffer) Tail() ([]byte, int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) > t.max {
		b = b[len(b)-t.max:]
	}
	return append([]byte(nil), b...), t.total
}

// FileTail reads the last max bytes of a file and its size. The file is a
// stream a step spooled, which the agent could have swapped for a FIFO or a
// link: it is opened as safefile opens what the agent could touch.
func FileTail(path string, max int) ([]byte, int64, error) {
	f, err := safefile.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	size := fi.Size()
	n := min(size, int64(max))
	b := make([]byte, n)
	if _, err := f.ReadAt(b, size-n); err != nil && err != io.EOF {
		return nil, 0, err
	}
	return b, size, nil
}
