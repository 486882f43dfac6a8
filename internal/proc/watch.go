package proc

import (
	"bytes"
	"sync"
	"sync/atomic"
	"time"
)

// Activity classifies one line the child printed: whether it is progress
// (not only a retry or error notice) and whether it is the agent's closing
// result line.
type Activity func(line []byte) (progress, result bool)

// watchLineMax is how much of a line is shown to the classifier; the rest
// of a long line streams past.
const watchLineMax = 4096

// watch follows both streams line by line for the idle and after-result
// guards. Its times are durations since it started, on the monotonic clock
// (elapsed): a wall clock that NTP moves an hour ahead does not make a
// working agent idle, nor does the wall time a laptop spent asleep.
// resultAt is 0 unless the last progress line was a result line (then it
// is its time + 1).
type watch struct {
	classify     Activity
	elapsed      func() time.Duration
	lastProgress atomic.Int64
	resultAt     atomic.Int64
}

func newWatch(a Activity) *watch {
	start := time.Now()
	return &watch{classify: a, elapsed: func() time.Duration { return time.Since(start) }}
}

func (w *watch) line(b []byte) {
	progress, result := w.classify(b)
	if !progress {
		return
	}
	now := int64(w.elapsed())
	w.lastProgress.Store(now)
	if result {
		w.resultAt.Store(now + 1)
	} else {
		// Output after a result (a wrapper's second session) means the
		// command is still at work.
		w.resultAt.Store(0)
	}
}

// lines is one stream's line splitter feeding a watch.
type lines struct {
	w    *watch
	mu   sync.Mutex
	buf  []byte
	long bool
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if room := watchLineMax - len(l.buf); room > 0 {
			l.buf = append(l.buf, chunk[:min(room, len(chunk))]...)
		} else if !l.long {
			// A line this long is output at work, whatever it ends as.
			l.long = true
			l.w.lastProgress.Store(int64(l.w.elapsed()))
		}
		if i < 0 {
			break
		}
		l.w.line(l.buf)
		l.buf, l.long = l.buf[:0], false
		p = p[i+1:]
	}
	return n, nil
}

// guard is what the watch decided: "" to go on, else why the group dies.
func (w *watch) guard(idle, afterResult time.Duration) string {
	now := w.elapsed()
	if idle > 0 && now-time.Duration(w.lastProgress.Load()) >= idle {
		return killIdle
	}
	if at := w.resultAt.Load(); afterResult > 0 && at != 0 && now-time.Duration(at-1) >= afterResult {
		return killAfterResult
	}
	return ""
}

const (
	killIdle        = "idle"
	killAfterResult = "after-result"
)
