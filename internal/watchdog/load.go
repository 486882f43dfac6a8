package watchdog

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// changesPatch is the iteration folder's diff (written by loop-record).
const changesPatch = "changes.patch"

// Window reads the last k+1 iterations of a run after iteration since, from
// the end of its log: the cost depends on k, not on the run's length. The
// last two carry their diffs' blob changes.
func Window(st *store.Store, id string, k, since int) ([]Iteration, error) {
	path := st.RunPath(id, store.IterationsFile)
	lines, err := store.TailLines(path, k+1)
	if err != nil {
		return nil, err
	}
	logs := make([]*record.IterationLog, len(lines))
	for i, line := range lines {
		logs[i] = &record.IterationLog{}
		if err := json.Unmarshal(line, logs[i]); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return windowOf(st, id, logs, since)
}

// windowOf is Window from the log's last k+1 iterations, already decoded.
func windowOf(st *store.Store, id string, logs []*record.IterationLog, since int) ([]Iteration, error) {
	var out []Iteration
	for _, it := range logs {
		if it.Iteration > since {
			out = append(out, Iteration{Log: it})
		}
	}
	for i := max(len(out)-2, 0); i < len(out); i++ {
		if out[i].Log.DiffDigest == "" || out[i].Log.DiffDigest == EmptyDiff {
			continue
		}
		ch, err := patchChanges(filepath.Join(st.IterationDir(id, out[i].Log.Iteration), changesPatch))
		if err != nil {
			return nil, err
		}
		out[i].Changes = ch
	}
	return out, nil
}
