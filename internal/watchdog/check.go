package watchdog

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/store"
)

// DefaultMaxRewrites is how many times a run's prompt may be rewritten
// before the next signal stops it.
const DefaultMaxRewrites = 2

// Settings are the watchdog's run settings.
type Settings struct {
	Off         bool
	K           int
	MaxRewrites int
	// Seen is the run's watchdog state as the caller last read run.json
	// (nil: not read). When nothing fires on it, Check returns without
	// the run's lock, a repair and a second read of run.json and the log.
	Seen *record.Watchdog
	// Tail are the log's last K+1 iterations as the caller decoded them
	// (nil: read them), for the check on Seen.
	Tail []*record.IterationLog
}

// SettingsOf are the watchdog's settings, from a run's typed settings.
func SettingsOf(set *runconfig.Settings) Settings {
	return Settings{Off: set.Watchdog == "off", K: max(set.WatchdogK, 1), MaxRewrites: set.MaxRewrites}
}

// Actions of a check.
const (
	DoContinue = "continue" // nothing fired
	DoRewrite  = "rewrite"  // the prompt was rewritten; retry with it
	DoStuck    = "stuck"    // fired again with no rewrite left
)

// Action is what the watchdog decided after an iteration.
type Action struct {
	Do      string
	Signals []record.Signal
	// Prompt is the prompt file the next step uses; "" for the run's own.
	Prompt string
	// Reason names the signal that stopped the run (Do == DoStuck).
	Reason string
	// Snapshot is the REPLAN context snapshot a rewrite wrote.
	Snapshot string
}

// currentPrompt is the prompt file the run's steps use now.
func currentPrompt(run *record.Run) string {
	if p := run.Settings.PromptCurrent; p != "" {
		return p
	}
	if run.Watchdog != nil && run.Watchdog.Prompt != "" {
		return run.Watchdog.Prompt
	}
	return run.Settings.Prompt
}

// RewriteFile is the name of the run's n-th rewritten prompt.
func RewriteFile(n int) string { return fmt.Sprintf("prompt.rewrite.%d.txt", n) }

// errQuiet ends a check where nothing fired without writing run.json: a
// check asked again of the same log decides the same (nothing), so there
// is nothing to remember, and each iteration is spared a run.json write.
var errQuiet = errors.New("nothing fired")

// Writer is what the watchdog records its findings through: the run's
// writer (internal/runstate gives it), so that the decision itself only
// reads the store and never imports the recorder.
type Writer interface {
	Update(id string, change func(run *record.Run) error) (*record.Run, error)
	AppendEvent(ev record.Event) error
	LastStepID(id, phase string) string
	Snapshot(id, milestone string) (string, error)
}

// Check looks at the run's last iteration: it records every signal that
// fires (WATCHDOG_SIGNAL events, run.json's watchdog.fired) and rewrites the
// prompt (WATCHDOG_REWRITE) or, with no rewrite left, says the run is stuck.
// It reads O(k) lines from the end of the log, and checking an iteration
// already checked changes nothing, so a driver resumed after a crash may
// call it again.
func Check(st *store.Store, r Writer, id string, set Settings) (*Action, error) {
	act := &Action{Do: DoContinue}
	if set.Off {
		return act, nil
	}
	if quiet(st, id, set) {
		act.Prompt = set.Seen.Prompt
		return act, nil
	}
	var before, after string
	_, err := r.Update(id, func(run *record.Run) error {
		wd := run.Watchdog
		if wd == nil {
			wd = &record.Watchdog{}
			run.Watchdog = wd
		}
		act.Prompt = wd.Prompt
		win, err := Window(st, id, set.K, wd.Since)
		if err != nil {
			return err
		}
		if len(win) == 0 || win[len(win)-1].Log.Iteration <= wd.Checked {
			return errQuiet
		}
		n := win[len(win)-1].Log.Iteration
		wd.Checked = n
		act.Signals = Evaluate(win, set.K)
		now := time.Now().UnixMilli()
		for _, s := range act.Signals {
			wd.Fired = append(wd.Fired, s)
			it := s.Iteration
			if err := r.AppendEvent(record.Event{TS: now, RunID: id, Type: record.EventWatchdogSignal, Iteration: &it, Signal: s.Name, Evidence: s.Evidence}); err != nil {
				return err
			}
		}
		if len(act.Signals) == 0 {
			return errQuiet
		}
		if wd.Rewrites >= set.MaxRewrites {
			act.Do = DoStuck
			act.Reason = fmt.Sprintf("watchdog: %s after %d prompt rewrites: %s", Names(act.Signals), wd.Rewrites, act.Signals[0].Evidence)
			return nil
		}
		before = currentPrompt(run)
		text, err := safefile.ReadFile(before, safefile.DocMax)
		if err != nil {
			return fmt.Errorf("watchdog: read the prompt to rewrite: %w", err)
		}
		k := wd.Rewrites + 1
		after = filepath.Join(st.RunDir(id), RewriteFile(k))
		if err := store.WriteFileAtomic(after, []byte(Rewrite(string(text), k, act.Signals)), store.FileMode); err != nil {
			return err
		}
		if err := r.AppendEvent(record.Event{TS: now, RunID: id, Type: record.EventWatchdogRewrite, Iteration: &n,
			Signal: Names(act.Signals), Evidence: act.Signals[0].Evidence, PromptBefore: before, PromptAfter: after,
			StepID: r.LastStepID(id, "implementation")}); err != nil {
			return err
		}
		wd.Rewrites, wd.Since, wd.Prompt = k, n, after
		run.Settings.PromptCurrent = after
		act.Do, act.Prompt = DoRewrite, after
		return nil
	})
	if errors.Is(err, errQuiet) {
		return act, nil
	}
	if err != nil || act.Do != DoRewrite {
		return act, err
	}
	act.Snapshot, err = r.Snapshot(id, "REPLAN")
	return act, err
}

// quiet says, from the state the caller read, that a check would find
// nothing to record: the same window, read again under the lock, decides
// the same, since only a check (this driver's) moves Since. An error is
// left for the check under the lock to report.
func quiet(st *store.Store, id string, set Settings) bool {
	if set.Seen == nil {
		return false
	}
	win, err := windowOf(st, id, set.Tail, set.Seen.Since)
	if set.Tail == nil {
		win, err = Window(st, id, set.K, set.Seen.Since)
	}
	if err != nil {
		return false
	}
	return len(win) == 0 || win[len(win)-1].Log.Iteration <= set.Seen.Checked || len(Evaluate(win, set.K)) == 0
}
