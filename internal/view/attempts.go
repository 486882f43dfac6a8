package view

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// LoadAttempts reads a run's attempts.jsonl: the paid agent calls that are
// not iterations (rate-limited, interrupted, reviewer, naming, ...). A line
// that is not a whole attempt is skipped, as every reader skips a torn tail.
func LoadAttempts(st *store.Store, id string) ([]record.Attempt, error) {
	var out []record.Attempt
	err := store.ScanFile(st.RunPath(id, store.AttemptsFile), func(_ int, line []byte) error {
		var a record.Attempt
		if json.Unmarshal(line, &a) == nil && a.Attempt > 0 {
			out = append(out, a)
		}
		return nil
	})
	return out, err
}

// AttemptsByIteration files each attempt under the iteration it belongs
// to: a reviewer's under the iteration it reviewed, any other under the
// iteration that came after it (its Iteration is the last one recorded
// before it, so after the last iteration it is under N+1).
func AttemptsByIteration(atts []record.Attempt) map[int][]record.Attempt {
	m := map[int][]record.Attempt{}
	for _, a := range atts {
		n := a.Iteration + 1
		if a.Kind == record.AttemptReviewer && a.Iteration > 0 {
			n = a.Iteration
		}
		m[n] = append(m[n], a)
	}
	return m
}

// AttemptsLine is attempts in one line: "rate_limited $0.01, interrupted $0.40".
func AttemptsLine(atts []record.Attempt) string {
	parts := make([]string, len(atts))
	for i, a := range atts {
		parts[i] = Escape(a.Kind, false) + " " + Cost(a.CostUSD)
	}
	return strings.Join(parts, ", ")
}

// AttemptsTotal is "3 (rate_limited 2, interrupted 1), $0.41": the count
// by kind and their cost (what is known of it).
func AttemptsTotal(atts []record.Attempt) string {
	kinds := map[string]int{}
	var cost *float64
	for _, a := range atts {
		kinds[a.Kind]++
		record.AddCostTo(&cost, a.CostUSD) // as the run's totals take it: a forged negative lowers nothing
	}
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if kinds[names[i]] != kinds[names[j]] {
			return kinds[names[i]] > kinds[names[j]]
		}
		return names[i] < names[j]
	})
	by := make([]string, len(names))
	for i, k := range names {
		by[i] = fmt.Sprintf("%s %d", Escape(k, false), kinds[k])
	}
	return fmt.Sprintf("%d (%s), %s", len(atts), strings.Join(by, ", "), Cost(cost))
}
