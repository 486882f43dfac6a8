package ratelimit

import (
	"fmt"
	"time"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/recorder"
)

// Settings are a run's rate-limit settings.
type Settings struct {
	Account string        // account (default: the agent program's name)
	MaxWait time.Duration // max_wait (default 6h)
	Backoff time.Duration // rate_limit_backoff: the first wait when no reset time is known
}

// ParseSettings reads account, max_wait and rate_limit_backoff.
func ParseSettings(m map[string]string) (Settings, error) {
	s := Settings{Account: m["account"], MaxWait: DefaultMaxWait, Backoff: FirstBackoff}
	for key, dst := range map[string]*time.Duration{"max_wait": &s.MaxWait, "rate_limit_backoff": &s.Backoff} {
		v := m[key]
		if v == "" {
			continue
		}
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return s, fmt.Errorf("%s=%q: want a duration such as 6h or 30s", key, v)
		}
		*dst = d
	}
	return s, nil
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
	return fmt.Sprintf("rate-limited: waiting %s, resuming at %s", d.Wait.Round(time.Second), d.ResumeAt.Local().Format("15:04:05 MST"))
}

// Decider decides for one run.
type Decider struct {
	R   *recorder.Recorder
	Run string
	Set Settings
	// Agent is the agent's command line, for the default account.
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

// Limited decides after an agent call that hit a limit: it records a
// RATE_LIMITED event with the reset time and the wait, leaves the store's
// note for the other loops of the account, and says how long to wait, or to
// pause when the stretch would wait longer than max_wait.
func (d *Decider) Limited(step *record.Step) (Decision, error) {
	now := d.now()
	s, err := CurrentStretch(d.R.St, d.Run)
	if err != nil {
		return Decision{}, err
	}
	wait := Wait(step.RateLimitResetsAt, now, s.Attempts, d.Set.Backoff)
	evidence := ""
	if step.RateLimitEvidence != nil {
		evidence = *step.RateLimitEvidence
	}
	if err := Leave(d.R.St.Root, d.account(), Entry{ResetsAt: now.Add(wait).UnixMilli(), RunID: d.Run, Evidence: evidence, WrittenAt: now.UnixMilli()}, now); err != nil {
		d.R.Log.Warn("could not leave the rate-limit note", "err", err)
	}
	return d.decide(now, wait, s, step.RateLimitResetsAt, "the agent hit a usage or rate limit: "+evidence)
}

// Before decides before an agent call: when another loop of the account
// left a note whose time is ahead, wait for it (recorded as a RATE_LIMITED
// event) instead of calling the agent.
func (d *Decider) Before() (Decision, error) {
	now := d.now()
	e, ok := Pending(d.R.St.Root, d.account(), now)
	if !ok {
		return Decision{}, nil
	}
	s, err := CurrentStretch(d.R.St, d.Run)
	if err != nil {
		return Decision{}, err
	}
	at := e.ResetsAt
	return d.decide(now, time.UnixMilli(at).Sub(now), s, &at, NoteWaitMessage)
}

func (d *Decider) decide(now time.Time, wait time.Duration, s Stretch, resetsAt *int64, msg string) (Decision, error) {
	dec := Decision{Wait: wait, ResumeAt: now.Add(wait)}
	if s.Waited+wait > d.Set.MaxWait {
		dec.Pause, dec.Wait = true, 0
		dec.Reason = fmt.Sprintf("rate-limited: waited %s, the next wait of %s would pass --max-wait %s", s.Waited.Round(time.Second), wait.Round(time.Second), d.Set.MaxWait)
	}
	ms := dec.Wait.Milliseconds()
	ev := record.Event{TS: now.UnixMilli(), RunID: d.Run, Type: record.EventRateLimited, RateLimitResetsAt: resetsAt, WaitMs: &ms, Message: msg}
	_, err := d.R.Update(d.Run, func(*record.Run) error { return d.R.AppendEvent(ev) })
	return dec, err
}
