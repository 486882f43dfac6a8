package agentmatrix

import (
	"sync"
	"time"

	"github.com/loopkit/loopkit/internal/testsupport/modelapi"
)

// A CLI's start-up is most of its time on a loaded machine: at a load of
// 20 to 40 on 2 cores opencode took 2.5 min from its start to its first
// request, Gemini CLI over a minute, and a case given too short a
// --timeout ends in the middle of the CLI's work (what looked like
// opencode stalling after its first tool step was that timeout).
const (
	// longBudget is the --timeout of a case the CLI ends by itself (a
	// success, or a fault it gives up on or loopkit stops it for): it only
	// bounds a broken run, so it holds on a loaded machine.
	longBudget = 8 * time.Minute
	// hangWait is how long a hang or a stall is left to the CLI's own
	// timeouts (Claude's and Codex's end it in 15-60 s) after it started.
	hangWait = 60 * time.Second
	// maxStartup is the start-up allowed for when none was measured yet.
	maxStartup = 4 * time.Minute
)

// budget is the case's loop run --timeout. A hang or a stall (or Codex's
// wait for an unreachable API, should --idle-timeout not end it) is ended
// by it, so there it is the CLI's start-up (three times the slowest this
// CLI's earlier cases took to their first request, or maxStartup before
// any) plus hangWait: a hang case lasts that long whatever happens.
func (tc matrixCase) budget(cli string) time.Duration {
	// a cut or malformed stream every CLI ends by itself (opencode after
	// its five retries, 70 s): the long budget
	if tc.fault != modelapi.FaultHang && tc.fault != modelapi.FaultStall && !tc.unreachable && !tc.forever {
		return longBudget
	}
	return startups.allowance(cli) + hangWait
}

// startupLog keeps, per CLI, the slowest time from `loop run`'s start to
// the CLI's first request of this process's cases.
type startupLog struct {
	mu      sync.Mutex
	slowest map[string]time.Duration
}

var startups = startupLog{slowest: map[string]time.Duration{}}

func (s *startupLog) add(h *harness) {
	var first time.Time
	for _, r := range h.srv.Requests() {
		if r.Wire != "" { // a model request, not a connectivity check
			first = r.At
			break
		}
	}
	if first.IsZero() {
		return
	}
	d := first.Sub(h.started)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.slowest[h.cli.name] = max(s.slowest[h.cli.name], d)
}

func (s *startupLog) allowance(cli string) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.slowest[cli]
	if !ok {
		return maxStartup
	}
	return min(max(3*d, 30*time.Second), maxStartup)
}
