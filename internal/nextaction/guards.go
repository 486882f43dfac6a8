package nextaction

import (
	"fmt"
	"time"

	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/ratelimit"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/watchdog"
)

// Wait is the action of a driver that must not call its agent yet (a rate
// limit): it sleeps Extra["seconds"], logging Reason, then asks again.
const Wait = "wait"

// Rule names the driver and the tests read.
const (
	RuleNext            = "next"
	RuleWatchdog        = "watchdog"
	RuleWatchdogRewrite = "watchdog-rewrite"
	RuleRateLimited     = "rate-limited"
	RuleInternalError   = "internal-error"
)

// HookWatchdog is the hook event the watchdog rule fires (hooks.Watchdog).
const HookWatchdog = "watchdog"

// Recorder is what the watchdog and rate-limit rules record their
// findings through, so that asking again after a crash decides the same:
// the run's writer, which the caller (internal/runstate's door) gives. A
// decision never imports the writer.
type Recorder interface {
	watchdog.Writer
	ratelimit.Writer
}

// InternalError is the action after a decision failed: the run stops
// failed with the error (the driver records it), never left running.
func InternalError(err error) Action {
	return Action{Kind: Stop, Status: record.RunFailed, Reason: "internal error: " + err.Error(),
		Exit: exitcode.Internal, Rule: RuleInternalError}
}

// watchdogCheck looks at the last iteration (watchdog.Check): a signal
// with no rewrite left stops the run stuck; a rewrite gives the next
// iteration its rewritten prompt and lets the later rules speak. Asked
// only when the run could go on, and only with a recorder.
func watchdogCheck(in *Input) (Action, bool) {
	if in.Record == nil || in.St == nil {
		return Action{}, false
	}
	set := watchdog.SettingsOf(in.Set())
	if set.Seen = in.Run.Watchdog; set.Seen == nil {
		set.Seen = &record.Watchdog{}
	}
	set.Tail = in.tail(set.K + 1)
	act, err := watchdog.Check(in.St, in.Record, in.Run.RunID, set)
	if err != nil {
		return InternalError(err), true
	}
	if len(act.Signals) > 0 && in.Hook != nil {
		in.Hook(HookWatchdog, map[string]any{
			"signals": act.Signals, "action": act.Do, "prompt": act.Prompt, "reason": act.Reason})
	}
	switch act.Do {
	case watchdog.DoStuck:
		return stop(record.RunStuck, act.Reason), true
	case watchdog.DoRewrite:
		in.rewrite = &rewrite{prompt: act.Prompt,
			reason: "watchdog: " + watchdog.Names(act.Signals) + "; retrying with the rewritten prompt " + act.Prompt}
	}
	return Action{}, false
}

// rewrite is a prompt the watchdog rule rewrote for the next iteration.
type rewrite struct{ prompt, reason string }

// rateLimited: while the store's rate-limit note holds the run's account,
// wait for it, or pause the run when the stretch of waiting would pass
// max_wait (ratelimit.Decider.Before).
func rateLimited(in *Input) (Action, bool) {
	if in.Record == nil || in.St == nil {
		return Action{}, false
	}
	d, err := ratelimit.ForRun(in.St, in.Record, in.Log, in.Run)
	if err != nil {
		return InternalError(fmt.Errorf("run %s: %w", in.Run.RunID, err)), true
	}
	dec, err := d.Before()
	switch {
	case err != nil:
		return InternalError(err), true
	case dec.Pause:
		return stop(record.RunPaused, dec.Reason), true
	case dec.Wait > 0:
		return Action{Kind: Wait, Reason: dec.Line(), Extra: map[string]string{
			"seconds": fmt.Sprintf("%.3f", dec.Wait.Seconds()), "until": dec.ResumeAt.UTC().Format(time.RFC3339)}}, true
	}
	return Action{}, false
}
