package retention

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/loopkit/loopkit/internal/store"
)

// runHead is the part of run.json the policy needs; decoding only these
// fields keeps deciding 10,000 runs well under a second.
type runHead struct {
	RunID      string `json:"run_id"`
	Status     string `json:"status"`
	UpdatedAt  int64  `json:"updated_at"`
	ResolvedAt *int64 `json:"resolved_at"`
}

// Summarize reads every run's run.json and live lock: never an iteration log.
func Summarize(st *store.Store) ([]Summary, error) {
	ids, err := st.RunIDs()
	if err != nil {
		return nil, fmt.Errorf("list runs in %s: %w", st.RunsDir(), err)
	}
	// Sequential on purpose: goroutines made a 10,000-run dry run slower
	// (the lookups contend in the one runs/ directory).
	out := make([]Summary, len(ids))
	for i, id := range ids {
		out[i] = SummarizeRun(st, id)
	}
	return out, nil
}

// SummarizeRun is one run's summary; a run.json that is missing, not JSON or
// without updated_at makes the run unreadable (kept, never deleted blindly).
func SummarizeRun(st *store.Store, id string) Summary {
	s := Summary{RunID: id}
	live, err := st.IsLive(id)
	if err != nil {
		s.Err = fmt.Errorf("live lock: %w", err)
		return s
	}
	s.Live = live
	data, err := os.ReadFile(st.RunPath(id, store.RunFile))
	if errors.Is(err, os.ErrNotExist) {
		s.Err = errors.New("run.json is missing")
		return s
	}
	if err != nil {
		s.Err = fmt.Errorf("read run.json: %w", err)
		return s
	}
	var h runHead
	if err := json.Unmarshal(data, &h); err != nil {
		s.Err = fmt.Errorf("run.json: %w", err)
		return s
	}
	if h.UpdatedAt <= 0 {
		s.Err = errors.New("run.json has no updated_at")
		return s
	}
	s.Status, s.UpdatedAt, s.Resolved = h.Status, h.UpdatedAt, h.ResolvedAt != nil
	return s
}
