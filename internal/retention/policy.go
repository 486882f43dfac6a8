// Package retention is loop-clean's policy and deleter: which runs to keep
// (a pure function over run summaries) and how to delete the others without
// ever leaving a half-deleted run or following a symlink out of the store.
package retention

import (
	"cmp"
	"math"
	"slices"

	"github.com/loopkit/loopkit/internal/record"
)

// The default policy: at most 20 runs, none older than 14 days.
const (
	DefaultKeepLast = 20
	DefaultKeepDays = 14
)

// Actions of a decision.
const (
	Keep   = "keep"
	Delete = "delete"
	Exempt = "exempt"
)

// Reasons of a decision, in the order they are tried.
const (
	ReasonStuck      = "stuck"
	ReasonPaused     = "paused" // someone means to resume it
	ReasonActive     = "active"
	ReasonUnreadable = "unreadable"
	ReasonOlder      = "older-than-days"
	ReasonBeyondLast = "beyond-last"
	ReasonWithinLast = "within-last"
)

const dayMs = 24 * 60 * 60 * 1000

// Policy is the two limits; 0 switches a limit off.
type Policy struct {
	KeepLast int
	KeepDays int
}

// Summary is what the policy knows of a run: run.json's few fields and
// whether its live lock is held. Nothing else is read to decide.
type Summary struct {
	RunID     string
	Status    string
	UpdatedAt int64 // ms since the epoch
	CreatedAt int64 // ms since the epoch; 0 unknown
	Resolved  bool  // resolved_at is set
	Live      bool  // a process holds live.lock
	// Err is why run.json could not be read; such a run is never deleted.
	Err error
}

// recent is when the run was last written: updated_at, or its created_at
// when that is later. A run made while the clock was not yet set (no
// real-time clock, before NTP) is created just after the newest run
// (store.CreationTime) but updated at the clock's 1970: by that alone it
// ranked oldest, and was deleted as decades old once the clock was set.
func (s Summary) recent() int64 { return max(s.UpdatedAt, s.CreatedAt) }

// Decision is one line of loop-clean's output.
type Decision struct {
	RunID   string   `json:"run_id"`
	Action  string   `json:"action"`
	Reason  string   `json:"reason"`
	AgeDays *float64 `json:"age_days"`
	Bytes   *int64   `json:"bytes,omitempty"`
	// Error says why a run is unreadable or why its deletion failed.
	Error string `json:"error,omitempty"`
	// UpdatedAt is the updated_at decided on; the deleter checks it again.
	UpdatedAt int64 `json:"-"`
}

// Decide applies the policy at time now (ms) and returns one decision per
// run, in the input's order. The result does not depend on that order:
// recency is updated_at, ties broken by run id (ids sort by creation).
func Decide(p Policy, now int64, runs []Summary) []Decision {
	out := make([]Decision, len(runs))
	var candidates []int
	for i, s := range runs {
		d := Decision{RunID: s.RunID, UpdatedAt: s.UpdatedAt}
		if s.Err == nil {
			// updated ahead of the clock (it went back since): age 0, not -0
			age := max(math.Round(float64(now-s.recent())/dayMs*100)/100, 0)
			d.AgeDays = &age
		}
		switch {
		case s.Err == nil && s.Status == record.RunStuck && !s.Resolved:
			d.Action, d.Reason = Exempt, ReasonStuck
		case s.Err == nil && s.Status == record.RunPaused:
			d.Action, d.Reason = Exempt, ReasonPaused
		// A run that has ended counts among the kept even while its driver
		// still holds it (finishing: this clean may be its own), so the
		// store settles at KeepLast runs, not one more per loop that ended
		// at once; the deleter never removes a run that is still live.
		case s.Live && !(s.Err == nil && record.Terminal(s.Status)):
			d.Action, d.Reason = Exempt, ReasonActive
		case s.Err != nil:
			d.Action, d.Reason, d.Error = Exempt, ReasonUnreadable, s.Err.Error()
		case p.KeepDays > 0 && now-s.recent() > int64(p.KeepDays)*dayMs:
			d.Action, d.Reason = Delete, ReasonOlder
		default:
			candidates = append(candidates, i)
		}
		out[i] = d
	}
	// Newest first; only non-exempt runs count toward keep-last.
	slices.SortFunc(candidates, func(a, b int) int {
		if c := cmp.Compare(runs[b].recent(), runs[a].recent()); c != 0 {
			return c
		}
		return cmp.Compare(runs[b].RunID, runs[a].RunID)
	})
	for rank, i := range candidates {
		if p.KeepLast > 0 && rank >= p.KeepLast {
			out[i].Action, out[i].Reason = Delete, ReasonBeyondLast
		} else {
			out[i].Action, out[i].Reason = Keep, ReasonWithinLast
		}
	}
	return out
}
