package loopdrive

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/proc"
	"github.com/loopkit/loopkit/internal/ratelimit"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// waitPoll is how often a wait looks at the run's status: a pause takes
// effect within it.
const waitPoll = time.Second

// wallNow is the wall clock a wait's end is kept on (tests move it).
var wallNow = time.Now

// maxWaitSeconds bounds --seconds: ratelimit.Longest, so that no float
// overflows the timer into a wait that ends at once.
const maxWaitSeconds = float64(ratelimit.Longest / time.Second)

// waitRun is the driver's wait for a rate limit to reset (action=wait):
// seconds at most, less once run id is no longer running. A `loop pause`
// during an hour's wait then stops the driver at once, instead of leaving
// it holding the run (resume refused as busy) until the limit resets.
// A stop signal ends it quietly, as it ends sleep; so does the driver's death.
// The limit resets at a time of the wall clock, and the timer's monotonic
// clock stops while a laptop sleeps: the wait also ends once the wall
// clock passes its end, so a machine that slept through the reset goes on
// when it wakes instead of waiting the rest of the hours again.
func waitRun(env *cli.Env, st *store.Store, id string, seconds float64) error {
	proc.FollowDriver()
	sigs := make(chan os.Signal, 1)
	proc.NotifyStop(sigs)
	// the signals' own effect again once it returns (a test binary's too)
	defer signal.Stop(sigs)
	if !(seconds <= maxWaitSeconds) { // NaN too
		seconds = maxWaitSeconds
	}
	d := time.Duration(seconds * float64(time.Second))
	wallEnd := wallNow().Round(0).Add(d)
	end := time.NewTimer(d)
	defer end.Stop()
	poll := time.NewTicker(waitPoll)
	defer poll.Stop()
	for {
		// the status alone, a second at a time for hours; unreadable (the
		// agent's leftovers may be writing it): wait on
		if h, err := st.ReadRunHead(id); err == nil && h.RunID == id && h.Status != record.RunRunning {
			return nil
		}
		select {
		case <-end.C:
			return nil
		case s := <-sigs:
			return cli.Silent(128 + int(s.(syscall.Signal)))
		case <-poll.C:
			if !wallNow().Round(0).Before(wallEnd) {
				return nil
			}
		}
	}
}
