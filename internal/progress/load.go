package progress

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// Load returns the last n IterationLogs of a run, oldest first. It reads
// only the end of iterations.jsonl, so the cost does not grow with the
// run's history; a torn last line (a writer killed mid-line) is ignored.
// A run that does not exist is store.ErrNoSuchRun (wrapped); Load never
// creates anything.
func Load(st *store.Store, runID string, n int) ([]record.IterationLog, error) {
	if err := store.ValidRunID(runID); err != nil {
		return nil, err
	}
	if err := st.FindRun(runID); err != nil {
		return nil, err
	}
	path := st.RunPath(runID, store.IterationsFile)
	lines, err := store.TailLines(path, n)
	if err != nil && !strings.Contains(err.Error(), path) {
		err = fmt.Errorf("read %s: %w", path, err)
	}
	if err != nil { // naming the file once, not "read PATH: open PATH: ..."
		return nil, err
	}
	logs := make([]record.IterationLog, len(lines))
	for i, line := range lines {
		if err := json.Unmarshal(line, &logs[i]); err != nil {
			return nil, fmt.Errorf("%s: line %d from the end: %w", path, len(lines)-i, err)
		}
		// a line copied by hand must not feed the prompt twice
		if i > 0 && logs[i].Iteration != logs[i-1].Iteration+1 {
			return nil, fmt.Errorf("%s: iteration %d follows %d: the log was edited by hand (a line copied, moved or removed); move the run aside", path, logs[i].Iteration, logs[i-1].Iteration)
		}
	}
	return logs, nil
}
