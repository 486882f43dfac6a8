package otelexport

import (
	"bytes"
	"fmt"
	"os"

	"github.com/loopkit/loopkit/internal/store"
)

// runTail is how far a session read a run's iterations.jsonl and
// attempts.jsonl, with the marks then and the newest iteration's time: a
// follow read a growing run's logs from their first line each time it
// changed, the whole history for each new iteration (quadratic over a
// long run). Kept only once what was read is delivered.
type runTail struct {
	marks     RunMarks
	iter, att fileTail
	last      int64
}

// fileTail is a log read up to off (its lines lines).
type fileTail struct {
	fi    os.FileInfo
	off   int64
	lines int
}

// tail is where the scans of run id, at marks m, can start: what was
// read before, while the marks have not gone back (a run made again
// under its id starts from nothing).
func (s *Session) tail(id string, m RunMarks) runTail {
	t, ok := s.tails[id]
	if !ok || t.marks.CreatedAt != m.CreatedAt || t.marks.Iteration > m.Iteration || t.marks.Attempt > m.Attempt {
		return runTail{}
	}
	return t
}

func (s *Session) keepTail(id string, t runTail) {
	if s.tails == nil {
		s.tails = map[string]runTail{}
	}
	s.tails[id] = t
}

// still is t while path is still the file read, not cut back before t's
// offset and with a line ending there; else the start of path.
func (t fileTail) still(path string) fileTail {
	fi, err := os.Lstat(path)
	if err != nil {
		return fileTail{}
	}
	if t.fi == nil || !os.SameFile(fi, t.fi) || fi.Size() < t.off || !store.EndsLineAt(path, t.off) {
		t = fileTail{}
	}
	t.fi = fi
	return t
}

// scanFrom is scanRecords from t (see still), returning how far it read.
func scanFrom(path string, t fileTail, fn func(line []byte) error) (fileTail, error) {
	var err error
	t.off, t.lines, err = store.ScanFrom(path, t.off, t.lines, func(n int, _ int64, line []byte) error {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			return nil
		}
		err := fn(line)
		if _, ok := err.(delivered); ok {
			return err
		}
		if err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		return nil
	})
	return t, err
}
