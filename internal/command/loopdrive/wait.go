package loopdrive

import (
	"os"
	"syscall"
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/proc"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// waitPoll is how often a wait looks at the run's status: a pause takes
// effect within it.
const waitPoll = time.Second

// waitRun is the driver's wait for a rate limit to reset (action=wait):
// seconds at most, less once run id is no longer running. A `loop pause`
// during an hour's wait then stops the driver at once, instead of leaving
// it holding the run (resume refused as busy) until the limit resets.
// A stop signal ends it quietly, as it ends sleep; so does the driver's death.
func waitRun(env *cli.Env, st *store.Store, id string, seconds float64) error {
	proc.FollowDriver()
	sigs := make(chan os.Signal, 1)
	proc.NotifyStop(sigs)
	end := time.NewTimer(time.Duration(seconds * float64(time.Second)))
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
		}
	}
}
