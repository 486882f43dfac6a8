package loopdrive

import (
	"fmt"
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/hooks"
	"github.com/loopkit/loopkit/internal/nextaction"
	"github.com/loopkit/loopkit/internal/ratelimit"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runstate"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/watchdog"
)

// Wait is the action of a driver that must not call its agent yet (a rate
// limit): it sleeps Extra["seconds"], logging Reason, then asks again.
const Wait = "wait"

// guard is asked when the rules say to run another iteration: the watchdog
// looks at the last one (it may rewrite the prompt or stop the run stuck),
// then the store's rate-limit note may ask for a wait or a pause. Both
// record what they decide, so asking again after a crash decides the same.
func guard(env *cli.Env, st *store.Store, id string, a nextaction.Action) (nextaction.Action, error) {
	r := runstate.Plain(st, env.Log).Rec
	run, err := st.ReadRun(id)
	if err != nil {
		return a, err
	}
	act, err := watchdog.Check(st, r, id, watchdog.SettingsOf(&run.Settings))
	if err != nil {
		return a, err
	}
	if len(act.Signals) > 0 {
		hooks.ForRun(st, run, env.Log).Fire(hooks.Watchdog, id, map[string]any{
			"signals": act.Signals, "action": act.Do, "prompt": act.Prompt, "reason": act.Reason})
	}
	switch act.Do {
	case watchdog.DoStuck:
		return nextaction.Action{Kind: nextaction.Stop, Status: record.RunStuck, Reason: act.Reason,
			Exit: nextaction.StopExit(record.RunStuck), Rule: "watchdog"}, nil
	case watchdog.DoRewrite:
		a.Prompt, a.Rule = act.Prompt, "watchdog-rewrite"
		a.Reason = "watchdog: " + watchdog.Names(act.Signals) + "; retrying with the rewritten prompt " + act.Prompt
	}
	d, err := ratelimit.ForRun(st, r, env.Log, run)
	if err != nil {
		return a, cli.WithCode(exitcode.Usage, fmt.Errorf("run %s: %w", id, err))
	}
	dec, err := d.Before()
	switch {
	case err != nil:
		return a, err
	case dec.Pause:
		return nextaction.Action{Kind: nextaction.Stop, Status: record.RunPaused, Reason: dec.Reason,
			Exit: nextaction.StopExit(record.RunPaused), Rule: "rate-limited"}, nil
	case dec.Wait > 0:
		return nextaction.Action{Kind: Wait, Reason: dec.Line(), Rule: "rate-limited",
			Extra: map[string]string{"seconds": fmt.Sprintf("%.3f", dec.Wait.Seconds()), "until": dec.ResumeAt.UTC().Format(time.RFC3339)}}, nil
	}
	return a, nil
}
