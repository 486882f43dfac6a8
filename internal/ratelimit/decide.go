package ratelimit

import (
	"fmt"
	"time"

	"github.com/loopkit/loopkit/internal/lazylog"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
)

// Settings are a run's rate-limit settings.
type Settings struct {
	Account string        // account (default: the agent program's name)
	MaxWait time.Duration // max_wait (default 6h)
	Backoff time.Duration // rate_limit_backoff: the first wait when no reset time is known
	// MaxDuration is the run's --max-duration (0: none) and Driven its
	// working time so far: a wait counts toward it, so one that would reach
	// it pauses the run instead of waiting to fail it.
	MaxDuration time.Duration
	Driven      func(now time.Time) time.Duration
}

// SettingsOf are a run's rate-limit settings, from its typed settings (a
// zero duration is the default's).
func SettingsOf(set *runconfig.Settings) Settings {
	s := Settings{Account: set.Account, MaxWait: set.MaxWait.D(), Backoff: set.RateLimitBackoff.D(),
		MaxDuration: set.MaxDuration.D(), Driven: set.Driven}
	if s.MaxWait <= 0 {
		s.MaxWait = DefaultMaxWait
	}
	if s.Backoff <= 0 {
		s.Backoff = FirstBackoff
	}
	return s
}

// Decision is what a loop does about a rate limit.
type Decision struct {
	Wait     time.Duration // how long to wait before calling the agent (0: go)
	ResumeAt time.Time
	// Pause is set when the wait would take the stretch past max_wait.
	Pause  bool
	Reason string
}

// Line is the one log line a waiting loop prints.
func (d Decision) Line() string {
	if d.Pause {
		return "rate-limited: " + d.Reason
	}
	at, now := d.ResumeAt.Local(), d.ResumeAt.Add(-d.Wait).Local()
	layout := "15:04:05 MST"
	if at.YearDay() != now.YearDay() || at.Year() != now.Year() {
		layout = "Mon Jan 2 15:04:05 MST" // a wait past midnight: which day
	}
	return fmt.Sprintf("rate-limited: waiting %s, resuming at %s", d.Wait.Round(time.Second), at.Format(layout))
}

// Writer is what a decision records its waits through: the run's writer
// (internal/runstate gives it); the decision itself only reads the store.
type Writer interface {
	Update(id string, change func(run *record.Run) error) (*record.Run, error)
	AppendEvent(ev record.Event) error
}

// Decider decides for one run.
type Decider struct {
	St  *store.Store
	W   Writer
	Log lazylog.Logger
	Run string
	Set Settings
	// Agent is the agent program, for the default account.
	Agent string
	Now   func() time.Time
}

func (d *Decider) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

func (d *Decider) account() string { return Account(d.Set.Account, d.Agent) }

// Limited records an agent call that hit a limit: a RATE_LIMITED event with
// the reset time and the wait it calls for, and the store's note for every
// loop of the account (this one included), which Before then waits on.
func (d *Decider) Limited(step *record.Step) (time.Duration, error) {
	now := d.now()
	s, err := CurrentStretch(d.St, d.Run)
	if err != nil {
		return 0, err
	}
	wait := Wait(step.RateLimitResetsAt, now, s.Attempts, d.Set.Backoff)
	evidence := ""
	if step.RateLimitEvidence != nil {
		evidence = *step.RateLimitEvidence
	}
	if err := Leave(d.St.Root, d.account(), Entry{ResetsAt: now.Add(wait).UnixMilli(), RunID: d.Run, Evidence: evidence, WrittenAt: now.UnixMilli()}, now); err != nil {
		d.Log.Warn("could not leave the rate-limit note", "err", err)
	}
	ms := wait.Milliseconds()
	ev := record.Event{TS: now.UnixMilli(), RunID: d.Run, Type: record.EventRateLimited, RateLimitResetsAt: step.RateLimitResetsAt, WaitMs: &ms, Message: "the agent hit a usage or rate limit: " + evidence}
	_, err = d.W.Update(d.Run, func(*record.Run) error { return d.W.AppendEvent(ev) })
	return wait, err
}

// Before decides before an agent call: while the store's note holds the
// account, wait for it, or pause when the stretch of waiting would pass
// max_wait. A wait on another loop's note is recorded as a RATE_LIMITED
// event of its own; a wait this run's own limited call asked for was
// recorded with that call.
func (d *Decider) Before() (Decision, error) {
	now := d.now()
	e, ok := Pending(d.St.Root, d.account(), now)
	if !ok {
		return Decision{}, nil
	}
	s, err := CurrentStretch(d.St, d.Run)
	if err != nil {
		return Decision{}, err
	}
	wait := until(e.ResetsAt, now)
	dec := Decision{Wait: wait, ResumeAt: now.Add(wait)}
	own := e.RunID == d.Run && s.Attempts > 0
	total := s.Waited
	if !own {
		total = addWait(total, wait)
	}
	if total > d.Set.MaxWait {
		dec.Pause, dec.Wait = true, 0
		dec.Reason = fmt.Sprintf("rate-limited: %s of waiting would pass --max-wait %s", total.Round(time.Second), d.Set.MaxWait)
		return dec, nil
	}
	if d.Set.MaxDuration > 0 && d.Set.Driven != nil {
		// the drivers' working time goes on while they wait: a wait that
		// reaches --max-duration would only end in an over-duration failure
		if worked := d.Set.Driven(now); wait >= d.Set.MaxDuration-worked {
			dec.Pause, dec.Wait = true, 0
			dec.Reason = fmt.Sprintf("rate-limited: waiting %s would pass --max-duration %s (worked %s)",
				wait.Round(time.Second), runconfig.Duration(d.Set.MaxDuration), worked.Round(time.Second))
			return dec, nil
		}
	}
	if own {
		return dec, nil
	}
	ms, at := wait.Milliseconds(), now.Add(wait).UnixMilli()
	ev := record.Event{TS: now.UnixMilli(), RunID: d.Run, Type: record.EventRateLimited, RateLimitResetsAt: &at, WaitMs: &ms, Message: NoteWaitMessage}
	_, err = d.W.Update(d.Run, func(*record.Run) error { return d.W.AppendEvent(ev) })
	return dec, err
}

// ForRun is the decider of a run, from its settings (account, max_wait,
// rate_limit_backoff and the agent's program).
func ForRun(st *store.Store, w Writer, l lazylog.Logger, run *record.Run) (*Decider, error) {
	program := ""
	if argv := run.Settings.Agent; len(argv) > 0 {
		program = argv[0]
	}
	return &Decider{St: st, W: w, Log: l, Run: run.RunID, Set: SettingsOf(&run.Settings), Agent: program}, nil
}
