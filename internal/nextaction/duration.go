package nextaction

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
)

// The run-wide time guard: driven_ms is the time the run's drivers have
// worked, checkpointed by the driver's holder with the moment it was
// written (driven_at, ms since the epoch): a resumed run goes on counting
// from driven_ms.

// DefaultDurationGrace is what a step running when --max-duration passes
// is given before it is stopped.
const DefaultDurationGrace = time.Minute

// Driven is how long the run's drivers have worked, up to in.Now: the
// checkpoint plus the time since it, while a driver holds the run.
func (in *Input) Driven() time.Duration { return in.Set().Driven(in.Now) }

// overDuration: the run's drivers have worked past --max-duration.
func overDuration(in *Input) (Action, bool) {
	limit := in.Set().MaxDuration.D()
	if limit <= 0 {
		return Action{}, false
	}
	used := in.Driven()
	if used < limit {
		return Action{}, false
	}
	return stop(record.RunFailed, fmt.Sprintf("over duration: worked %s, --max-duration %s",
		used.Round(time.Second), in.Set().MaxDuration)), true
}

// deadline is when the step and its validation must end under
// --max-duration (Unix ms): what is left of it plus the grace, from now;
// "" without a cap. The validation, which starts after the step, is cut
// there too instead of running to its own timeout.
func deadline(in *Input) string {
	at, ok := in.Set().Deadline(in.Now)
	if !ok {
		return ""
	}
	return strconv.FormatInt(at.UnixMilli(), 10)
}

func (in *Input) grace() time.Duration { return in.Set().DurationGrace.D() }

// stepTimeout is the next step's timeout when --max-duration comes first:
// what is left of it plus the grace; "" when the step's own timeout does.
func stepTimeout(in *Input) string {
	limit := in.Set().MaxDuration.D()
	if limit <= 0 {
		return ""
	}
	cut := max(limit-in.Driven(), 0) + in.grace()
	t := in.Set().Timeout.D()
	if t > 0 && t <= cut {
		return ""
	}
	return cut.Round(time.Millisecond).String()
}

// StartBounds says, for a run without a cost or token cap, what bounds it
// and how to cap it; "" for a capped run. Said once, when the run starts.
// Each agent call of an iteration has the step's timeout: a retry
// (--retries, the step's and the reviewer's) is as long as the step.
func StartBounds(set *runconfig.Settings) string {
	if set.MaxCost > 0 || set.MaxTokens > 0 {
		return ""
	}
	n, t := set.MaxIterations, set.Timeout
	its := "iterations"
	if n == 1 {
		its = "iteration"
	}
	calls, why := set.Retries+1, []string{}
	if set.Retries > 0 {
		why = append(why, fmt.Sprintf("--retries %d", set.Retries))
	}
	if set.Reviewer != "" {
		calls *= 2
		why = append(why, "a review")
	}
	bound := fmt.Sprintf("%d %s of up to %s each", n, its, t)
	if calls > 1 {
		bound = fmt.Sprintf("%d %s of up to %d agent calls of %s each with %s", n, its, calls, t, strings.Join(why, " and "))
	}
	if t > 0 {
		bound += fmt.Sprintf(" (%s of agent time)", agentTime(int64(n)*int64(calls), t.D()))
	} else {
		bound = fmt.Sprintf("%d %s with no step timeout", n, its)
	}
	if m := set.MaxDuration; m > 0 {
		return fmt.Sprintf("no cost cap: bounded by --max-duration %s and %s; cap the spend with --max-cost USD (config max_cost)", m, bound)
	}
	return fmt.Sprintf("no cost cap: bounded by %s; cap it with --max-cost USD or --max-duration D (config max_cost, max_duration)", bound)
}

// agentTime is calls × t, in hours past what a time.Duration holds (292
// years) rather than wrapped around.
func agentTime(calls int64, t time.Duration) string {
	if calls > 0 && t > math.MaxInt64/time.Duration(calls) {
		return strconv.FormatFloat(float64(calls)*t.Hours(), 'f', 0, 64) + "h"
	}
	return runconfig.Duration(time.Duration(calls) * t).String()
}

// FoldDriven checkpoints the working time in a run's settings: driven_ms
// becomes the count up to now, and driven_at now. The decision that stops
// the run calls it, last.
func FoldDriven(set *runconfig.Settings, now time.Time) { set.Fold(now) }

// FoldWorked is the holder's checkpoint: it adds what it measured on the
// monotonic clock since its last one (worked), so a jump of the wall clock
// or a machine asleep adds nothing; at most the wall time since driven_at,
// which a stopping decision may have saved since.
func FoldWorked(set *runconfig.Settings, now time.Time, worked time.Duration) {
	wall := max(0, now.UnixMilli()-set.DrivenAt)
	if set.DrivenAt == 0 {
		wall = worked.Milliseconds()
	}
	set.DrivenMS += min(max(0, worked.Milliseconds()), wall)
	set.DrivenAt = now.UnixMilli()
}
