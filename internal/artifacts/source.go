package artifacts

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/store"
)

// source is what a copy is made from: the run as the store has it now.
type source struct {
	st       *store.Store
	run      *record.Run
	iters    []iteration
	attempts []record.Attempt
}

func load(st *store.Store, run *record.Run) (*source, error) {
	s := &source{st: st, run: run}
	id := run.RunID
	err := store.ScanFile(st.RunPath(id, store.IterationsFile), func(n int, line []byte) error {
		var it iteration
		if err := json.Unmarshal(line, &it); err != nil || it.Iteration != len(s.iters)+1 {
			// a line out of sequence is no commit: copy what precedes it
			return errStop
		}
		s.iters = append(s.iters, it)
		return nil
	})
	if err != nil && err != errStop {
		return nil, err
	}
	if s.attempts, err = st.ReadAttempts(id); err != nil {
		return nil, err
	}
	return s, nil
}

var errStop = fmt.Errorf("stop")

// iteration is what a copy needs of an IterationLog line: decoding only
// these fields skips the inline output each line carries.
type iteration struct {
	Iteration int           `json:"iteration"`
	ExitCode  int           `json:"exit_code"`
	Agent     *record.Agent `json:"agent"`
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
