package retention

import (
	"errors"
	"fmt"

	"github.com/loopkit/loopkit/internal/store"
)

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
	h, err := st.ReadRunHead(id)
	if errors.Is(err, store.ErrNoSuchRun) {
		s.Err = errors.New("run.json is missing")
		return s
	}
	if err != nil {
		s.Err = err
		return s
	}
	if h.UpdatedAt <= 0 {
		s.Err = errors.New("run.json has no updated_at")
		return s
	}
	s.Status, s.UpdatedAt, s.CreatedAt, s.Resolved = h.Status, h.UpdatedAt, h.CreatedAt, h.ResolvedAt != nil
	return s
}
