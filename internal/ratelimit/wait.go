// Package ratelimit decides how long a loop waits when its agent hit a
// usage or rate limit, from what the run recorded (RATE_LIMITED events), and
// keeps the store's shared note so that loops on one account wait together.
package ratelimit

import (
	"encoding/json"
	"time"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// Defaults of the waits.
const (
	// Margin is added to a known reset time: the provider's clock and ours
	// differ a little, and a retry a second early is wasted.
	Margin = time.Second
	// FirstBackoff is the first wait when no reset time is known; it
	// doubles with each limited attempt in a row, up to MaxBackoff.
	FirstBackoff = time.Minute
	MaxBackoff   = 30 * time.Minute
	// DefaultMaxWait caps the waiting of one stretch; past it the run is
	// paused.
	DefaultMaxWait = 6 * time.Hour
	// Longest caps any one wait: a reset time further ahead (a hostile
	// note, a garbage time) waits this long, which is past any sensible
	// --max-wait, so the run pauses instead of overflowing.
	Longest = 30 * 24 * time.Hour
)

// until is how long from now until resetsAt (Unix ms), 0 when it has
// passed, at most Longest; computed in ms so no time ever overflows.
func until(resetsAt int64, now time.Time) time.Duration {
	ms := resetsAt - now.UnixMilli()
	if resetsAt <= now.UnixMilli() || ms <= 0 {
		return 0
	}
	return time.Duration(min(ms, Longest.Milliseconds())) * time.Millisecond
}

// addWait sums waits, each taken as at most Longest and never negative,
// so a total cannot wrap.
func addWait(a, b time.Duration) time.Duration {
	return min(a, Longest*1000) + min(max(b, 0), Longest)
}

// Wait is how long to wait before the next attempt: until resetsAt (Unix
// ms) plus Margin when it is known and ahead, else first doubled for each
// earlier limited attempt of the stretch, capped at MaxBackoff. After a
// limited attempt a known reset waits at least that backoff (first for the
// second attempt): a reset that did not hold is not trusted again, and a
// CLI's own retry delay taken for a reset (Claude Code's retry_delay_ms
// when the API sent no retry-after) would call a limited API every second.
func Wait(resetsAt *int64, now time.Time, earlier int, first time.Duration) time.Duration {
	if resetsAt != nil {
		if d := until(*resetsAt, now); d > 0 {
			d = min(d+Margin, Longest)
			if earlier > 0 {
				d = max(d, backoff(earlier-1, first))
			}
			return d
		}
	}
	return backoff(earlier, first)
}

// backoff is first doubled earlier times, capped at MaxBackoff.
func backoff(earlier int, first time.Duration) time.Duration {
	if first <= 0 {
		first = FirstBackoff
	}
	d := first
	for i := 0; i < earlier && d < MaxBackoff; i++ {
		d *= 2
	}
	return min(d, MaxBackoff)
}

// Stretch is the run's current stretch of rate-limit waits: the
// RATE_LIMITED events since the last iteration was recorded or the run was
// (re)started. Waited sums their waits; Attempts counts those that came
// from an agent call (not from waiting on another loop's note).
type Stretch struct {
	Waited   time.Duration
	Attempts int
}

// tailEvents is how many events the stretch is looked for in at first: a
// six-hour stretch of 30-minute waits is a dozen events.
const tailEvents = 256

// CurrentStretch reads the run's events backwards from the end until the
// stretch's start (ITERATION_RECORDED, RUN_STARTED or a status change).
func CurrentStretch(st *store.Store, id string) (Stretch, error) {
	for n := tailEvents; ; n *= 8 {
		lines, err := store.TailLines(st.RunPath(id, store.EventsFile), n)
		if err != nil {
			return Stretch{}, err
		}
		s, done := stretchOf(lines)
		if done || len(lines) < n {
			return s, nil
		}
	}
}

func stretchOf(lines [][]byte) (Stretch, bool) {
	var s Stretch
	for i := len(lines) - 1; i >= 0; i-- {
		var e record.Event
		if json.Unmarshal(lines[i], &e) != nil {
			continue
		}
		switch e.Type {
		case record.EventRateLimited:
			if e.WaitMs != nil {
				s.Waited = addWait(s.Waited, time.Duration(min(max(*e.WaitMs, 0), Longest.Milliseconds()))*time.Millisecond)
			}
			if e.Message != NoteWaitMessage {
				s.Attempts++
			}
		case record.EventIterationRecorded, record.EventRunCreated, record.EventRunStarted, record.EventRunResumed,
			record.EventRunPaused, record.EventRunQueued, record.EventRunCompleted, record.EventRunFailed,
			record.EventRunStuck, record.EventRunCanceled, record.EventRunResolved:
			return s, true
		}
		// the events between limited calls (the driver's STEP_STARTED and
		// STEP_FINISHED around each, the watchdog's, a config change) are
		// within the stretch
	}
	return s, false
}
