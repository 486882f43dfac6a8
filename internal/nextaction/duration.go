package nextaction

import (
	"fmt"
	"strconv"
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/record"
)

// Settings keys of the run-wide time guard. driven_ms is the time the
// run's drivers have worked, checkpointed by the driver's holder with the
// moment it was written (driven_at, ms since the epoch): a resumed run goes
// on counting from driven_ms.
const (
	KeyMaxDuration   = "max_duration"
	KeyDurationGrace = "duration_grace"
	KeyDrivenMS      = "driven_ms"
	KeyDrivenAt      = "driven_at"
	KeyTimeout       = "timeout"
)

// DefaultDurationGrace is what a step running when --max-duration passes
// is given before it is stopped.
const DefaultDurationGrace = time.Minute

// duration is a duration setting, 0 when unset or unreadable.
func (in *Input) duration(key string) time.Duration {
	d, err := cli.ParseDuration(in.Setting(key))
	if err != nil {
		return 0
	}
	return d
}

// Driven is how long the run's drivers have worked, up to in.Now: the
// checkpoint plus the time since it, while a driver holds the run.
func (in *Input) Driven() time.Duration {
	ms, _ := strconv.ParseInt(in.Setting(KeyDrivenMS), 10, 64)
	if at, err := strconv.ParseInt(in.Setting(KeyDrivenAt), 10, 64); err == nil && !in.Now.IsZero() {
		ms += max(0, in.Now.UnixMilli()-at)
	}
	return time.Duration(ms) * time.Millisecond
}

// overDuration: the run's drivers have worked past --max-duration.
func overDuration(in *Input) (Action, bool) {
	limit := in.duration(KeyMaxDuration)
	if limit <= 0 {
		return Action{}, false
	}
	used := in.Driven()
	if used < limit {
		return Action{}, false
	}
	return stop(record.RunFailed, fmt.Sprintf("over duration: worked %s, --max-duration %s",
		used.Round(time.Second), in.Setting(KeyMaxDuration))), true
}

// deadline is when the step and its validation must end under
// --max-duration (Unix ms): what is left of it plus the grace, from now;
// "" without a cap. The validation, which starts after the step, is cut
// there too instead of running to its own timeout.
func deadline(in *Input) string {
	limit := in.duration(KeyMaxDuration)
	if limit <= 0 || in.Now.IsZero() {
		return ""
	}
	cut := max(limit-in.Driven(), 0) + in.grace()
	return strconv.FormatInt(in.Now.Add(cut).UnixMilli(), 10)
}

func (in *Input) grace() time.Duration {
	if in.Setting(KeyDurationGrace) != "" {
		return in.duration(KeyDurationGrace)
	}
	return DefaultDurationGrace
}

// stepTimeout is the next step's timeout when --max-duration comes first:
// what is left of it plus the grace; "" when the step's own timeout does.
func stepTimeout(in *Input) string {
	limit := in.duration(KeyMaxDuration)
	if limit <= 0 {
		return ""
	}
	cut := max(limit-in.Driven(), 0) + in.grace()
	t := 30 * time.Minute // the driver's default
	if in.Setting(KeyTimeout) != "" {
		t = in.duration(KeyTimeout)
	}
	if t > 0 && t <= cut {
		return ""
	}
	return cut.Round(time.Millisecond).String()
}

// StartBounds says, for a run without a cost or token cap, what bounds it
// and how to cap it; "" for a capped run. Said once, when the run starts.
func StartBounds(settings map[string]string) string {
	if settings[KeyMaxCost] != "" || settings[KeyMaxTokens] != "" {
		return ""
	}
	in := &Input{Run: &record.Run{Settings: settings}}
	n := in.Int(KeyMaxIterations, DefaultMaxIterations)
	t := in.Setting(KeyTimeout)
	if t == "" {
		t = "30m"
	}
	bound := fmt.Sprintf("%d iterations of up to %s each", n, t)
	if d, err := cli.ParseDuration(t); err == nil && d > 0 {
		bound += fmt.Sprintf(" (%s of agent time)", (time.Duration(n) * d).String())
	} else {
		bound = fmt.Sprintf("%d iterations with no step timeout", n)
	}
	if m := settings[KeyMaxDuration]; m != "" {
		return fmt.Sprintf("no cost cap: bounded by --max-duration %s and %s; cap the spend with --max-cost USD (config max_cost)", m, bound)
	}
	return fmt.Sprintf("no cost cap: bounded by %s; cap it with --max-cost USD or --max-duration D (config max_cost, max_duration)", bound)
}

// FoldDriven checkpoints the working time in a run's settings: driven_ms
// becomes the count up to now, and driven_at now. The holder calls it
// while its driver works, and the decision that stops the run, last.
func FoldDriven(settings map[string]string, now time.Time) {
	in := &Input{Run: &record.Run{Settings: settings}, Now: now}
	settings[KeyDrivenMS] = strconv.FormatInt(in.Driven().Milliseconds(), 10)
	settings[KeyDrivenAt] = strconv.FormatInt(now.UnixMilli(), 10)
}
