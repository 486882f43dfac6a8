package loopstep

import (
	"sync"
	"time"

	"github.com/loopkit/loopkit/internal/agent"
	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/record"
)

// Rate-limit policies (--rate-limit-policy).
const (
	// policyLoop stops an agent at its first rate-limit retry: the driver
	// waits for the reset (or pauses under --max-wait) and tells every loop
	// on the account.
	policyLoop = "loop"
	// policyAgent leaves the CLI's own retries alone.
	policyAgent = "agent"
)

// liveWatch reads every line the agent prints while it runs for notices of
// failed API calls the CLI retries on its own: a refused key stops the
// agent at once (no retry can mend it), a rate limit does under the loop
// policy, and other retries (overload, 5xx) are logged as they come.
type liveWatch struct {
	env    *cli.Env
	policy string
	stop   chan struct{}
	once   sync.Once
	mu     sync.Mutex
	// notice is what stopped the agent, nil while it runs on.
	notice *agent.Notice
	// empty counts opencode's model steps that answered nothing, under mu
	// (both streams' lines come here)
	empty agent.EmptySteps
}

func newLiveWatch(env *cli.Env, policy string) *liveWatch {
	return &liveWatch{env: env, policy: policy, stop: make(chan struct{})}
}

// activity is proc's Activity: agent.Activity, and the notices.
func (w *liveWatch) activity(line []byte) (progress, result bool) {
	progress, result = agent.Activity(line)
	if n := agent.LiveNotice(line, time.Now()); n != nil {
		w.seen(n)
	}
	w.mu.Lock()
	n := w.empty.Line(line)
	w.mu.Unlock()
	if n != nil {
		w.seen(n)
	}
	return progress, result
}

func (w *liveWatch) seen(n *agent.Notice) {
	if n.Stops() || (n.Kind == record.ErrorKindRateLimit && w.policy != policyAgent) {
		w.once.Do(func() {
			w.mu.Lock()
			w.notice = n
			w.mu.Unlock()
			w.env.Log.Warn("agent stopped: "+n.Why(), "kind", n.Kind)
			close(w.stop)
		})
		return
	}
	w.env.Log.Warn(n.String())
}

// stopped is the notice the agent was stopped for, nil when it was not.
func (w *liveWatch) stopped() *agent.Notice {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.notice
}
