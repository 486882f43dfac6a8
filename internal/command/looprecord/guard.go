package looprecord

import (
	"fmt"
	"os"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/hooks"
	"github.com/loopkit/loopkit/internal/ratelimit"
	rec "github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runstate"
)

// rateLimitMode is --rate-limit STEP_FILE: when the step hit a usage or
// rate limit it is recorded as a rate_limited attempt (never an iteration),
// with a RATE_LIMITED event and the store's note for the account, and the
// wait is printed in milliseconds; otherwise it prints 0. The driver's next
// action then waits on the note (loop-drive --next).
func rateLimitMode(env *cli.Env, door *runstate.Door, id, file string) error {
	r := door.Rec
	data, err := os.ReadFile(file)
	if err != nil {
		return cli.Failf("rate-limit: %w", err) // os.ReadFile names the file
	}
	in, err := rec.DecodeInput(data)
	if err != nil || in.Step == nil {
		return cli.BadInput(fmt.Errorf("--rate-limit %s: want one step record (%v)", file, err))
	}
	if !in.Step.RateLimited {
		_, err := fmt.Fprintln(env.Stdout, 0)
		return err
	}
	run, err := r.St.ReadRun(id)
	if err != nil {
		return failure(err)
	}
	d, err := ratelimit.ForRun(r.St, r, env.Log, run)
	if err != nil {
		return env.UsageError("run %s: %v", id, err)
	}
	if _, err := door.RecordAttempt(id, in, "rate_limited"); err != nil {
		env.Log.Warn("rate-limited attempt not recorded", "err", err)
	}
	wait, err := d.Limited(in.Step)
	if err != nil {
		return failure(err)
	}
	hooks.ForRun(r.St, run, env.Log).Fire(hooks.RateLimited, id, map[string]any{
		"rate_limit_resets_at": in.Step.RateLimitResetsAt, "wait_ms": wait.Milliseconds(), "evidence": in.Step.RateLimitEvidence})
	_, err = fmt.Fprintln(env.Stdout, wait.Milliseconds())
	return err
}
