package artifacts

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/store"
)

// source is what a copy is made from: the run as the store has it now.
// Its logs are read from where a copy got to (see mark), so a recording's
// copy costs what it adds, not the run's length.
type source struct {
	st       *store.Store
	run      *record.Run
	iters    *lineLog[iteration]
	attempts *lineLog[record.Attempt]
	// full ignores how far the copies say they got: every file is
	// checked again (a repair).
	full bool
}

func load(st *store.Store, run *record.Run, full bool) *source {
	return &source{st: st, run: run, full: full,
		iters: &lineLog[iteration]{path: st.RunPath(run.RunID, store.IterationsFile),
			num: func(it *iteration) int { return it.Iteration }, inSequence: true},
		attempts: &lineLog[record.Attempt]{path: st.RunPath(run.RunID, store.AttemptsFile),
			num: func(a *record.Attempt) int { return a.Attempt }},
	}
}

var errStop = fmt.Errorf("stop")

// iteration is what a copy needs of an IterationLog line: decoding only
// these fields skips the inline output each line carries.
type iteration struct {
	Iteration int           `json:"iteration"`
	ExitCode  int           `json:"exit_code"`
	Agent     *record.Agent `json:"agent"`
}

// mark is a place in one of the run's line logs: after its first N
// entries, at byte Offset, where the bytes Tail (hex) end. The tail tells,
// cheaply, that the place is still in this log (not another run's, or a
// log repaired since).
type mark struct {
	N      int    `json:"n"`
	Offset int64  `json:"offset"`
	Tail   string `json:"tail,omitempty"`
}

// tailCheck is how many bytes before a mark its Tail keeps.
const tailCheck = 32

// decoded counts the log lines the copies decode (a test's seam).
var decoded atomic.Int64

// lineLog is one of the run's line logs (iterations.jsonl,
// attempts.jsonl), read from a mark on and kept for the other copies.
type lineLog[T any] struct {
	path string
	num  func(*T) int
	// inSequence: an entry numbered out of sequence ends the log (it is
	// no commit); otherwise only a line that does not decode is an error.
	inSequence bool
	loaded     bool
	start      mark // the entries follow it
	entries    []T
	ends       []int64 // the offset past each entry
	end        mark    // past the last entry
}

// after is the log's entries after m, and the mark they follow: m, or the
// log's start when m is no place in it (then the copy starts again).
func (l *lineLog[T]) after(m mark) ([]T, mark, error) {
	if l.loaded && m.N >= l.start.N && m.N <= l.end.N && m.Offset == l.offsetAt(m.N) && (m == l.start || l.valid(m)) {
		return l.entries[m.N-l.start.N:], m, nil
	}
	if !l.valid(m) {
		m = mark{}
	}
	if err := l.load(m); err != nil {
		return nil, m, err
	}
	return l.entries, m, nil
}

func (l *lineLog[T]) offsetAt(n int) int64 {
	if n == l.start.N {
		return l.start.Offset
	}
	return l.ends[n-l.start.N-1]
}

// valid tells whether m is a place in the log: its tail bytes end there.
func (l *lineLog[T]) valid(m mark) bool {
	if m.N == 0 && m.Offset == 0 {
		return true
	}
	if m.N < 0 || m.Offset <= 0 {
		return false
	}
	tail, err := tailAt(l.path, m.Offset)
	return err == nil && tail == m.Tail
}

// tailAt is the hex of the tailCheck bytes (fewer at the start) ending at
// off in the file at path.
func tailAt(path string, off int64) (string, error) {
	f, err := safefile.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	from := max(off-tailCheck, 0)
	buf := make([]byte, off-from)
	if _, err := f.ReadAt(buf, from); err != nil {
		return "", err
	}
	return hex.EncodeToString(buf), nil
}

func (l *lineLog[T]) load(m mark) error {
	l.loaded, l.start, l.entries, l.ends = false, m, nil, nil
	end := m.Offset
	_, _, err := store.ScanFrom(l.path, m.Offset, m.N, func(n int, off int64, line []byte) error {
		decoded.Add(1)
		var e T
		if err := json.Unmarshal(line, &e); err != nil || l.inSequence && l.num(&e) != n {
			if !l.inSequence {
				return fmt.Errorf("%s line %d: %v", filepath.Base(l.path), n, err)
			}
			return errStop // a line out of sequence is no commit: copy what precedes it
		}
		end = off + int64(len(line)) + 1
		l.entries = append(l.entries, e)
		l.ends = append(l.ends, end)
		return nil
	})
	if err != nil && err != errStop {
		return err
	}
	l.end = mark{N: m.N + len(l.entries), Offset: end, Tail: m.Tail}
	if len(l.entries) > 0 {
		if l.end.Tail, err = tailAt(l.path, end); err != nil {
			return err
		}
	}
	l.loaded = true
	return nil
}

// file is the path of a file of the run's directory.
func (s *source) file(names ...string) string { return s.st.RunPath(s.run.RunID, names...) }

func (s *source) iterFile(n int, name string) string {
	return filepath.Join(s.st.IterationDir(s.run.RunID, n), name)
}

func (s *source) attemptFile(n int, name string) string {
	return filepath.Join(s.st.AttemptDir(s.run.RunID, n), name)
}

// copyFrom copies the store file at path into w, read as loopkit reads
// what the agent could have touched (no link, no FIFO). A missing file
// copies nothing.
func copyFrom(w io.Writer, path string) (int64, error) {
	f, err := safefile.Open(path)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return io.Copy(w, f)
}

// exists reports whether path is a regular file of the store.
func exists(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode().IsRegular()
}

// agentOutput writes a step's output: its stdout, then its stderr (when it
// has one) under a `=== stderr ===` line. It reports whether either was kept.
func agentOutput(w io.Writer, stdout, stderr string) (bool, error) {
	if !exists(stdout) && !exists(stderr) {
		return false, nil
	}
	if _, err := copyFrom(w, stdout); err != nil {
		return true, err
	}
	if fi, err := os.Lstat(stderr); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
		if _, err := io.WriteString(w, "\n=== stderr ===\n"); err != nil {
			return true, err
		}
		if _, err := copyFrom(w, stderr); err != nil {
			return true, err
		}
	}
	return true, nil
}
