package nextaction_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/nextaction"
	"github.com/loopkit/loopkit/internal/ratelimit"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/runstate"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/testsupport/storetest"
)

// The rule list is the one place that decides: the watchdog and the rate
// limit are in it, after the stop rules (a run out of iterations stops
// before it waits on a rate limit).
func TestRuleOrder(t *testing.T) {
	var names []string
	for _, r := range nextaction.Rules {
		names = append(names, r.Name)
	}
	want := "status-not-given not-running git-stopped agent-cannot-run validation_cannot_run reviewer-cannot-run final-verify-cannot-run final-verify merge completed agent-denied agent-failing over-budget over_duration out-of-iterations watchdog rate-limited"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("rules:\n got %s\nwant %s", got, want)
	}
}

// rateLimitedRun is a running run of agent "claude" after one failed
// iteration, with the store's rate-limit note holding its account for a
// minute (left by another loop).
func rateLimitedRun(t *testing.T, maxIter int, maxWait time.Duration) (*store.Store, *nextaction.Input) {
	t.Helper()
	st, run := storetest.Run(t, func(run *record.Run) {
		run.Settings.Agent = []string{"claude", "-p"}
		run.Settings.MaxIterations = maxIter
		run.Settings.MaxWait = runconfig.Duration(maxWait)
		run.Settings.Watchdog = "off"
	})
	now := time.Now()
	if err := ratelimit.Leave(st.Root, "claude", ratelimit.Entry{ResetsAt: now.Add(time.Minute).UnixMilli(), RunID: "other", WrittenAt: now.UnixMilli()}, now); err != nil {
		t.Fatal(err)
	}
	exit := 0
	it := &record.IterationLog{Iteration: 1, Status: "fail", ExitCode: 1, Agent: &record.Agent{ExitCode: &exit}}
	in := &nextaction.Input{Run: run, Recent: []*record.IterationLog{it}, Now: now, St: st,
		Record: runstate.Plain(st, nil).Rec}
	return st, in
}

func events(t *testing.T, st *store.Store, typ string) []record.Event {
	t.Helper()
	data, _ := os.ReadFile(st.RunPath("r", store.EventsFile))
	var out []record.Event
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var ev record.Event
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// The rate-limit rule decides in the list: a wait while the note holds
// the account (recorded as RATE_LIMITED), a pause past max_wait; a stop
// rule before it wins without a wait recorded.
func TestRateLimitRule(t *testing.T) {
	st, in := rateLimitedRun(t, 10, time.Hour)
	a := nextaction.Decide(in, nextaction.Rules)
	if a.Kind != nextaction.Wait || a.Rule != nextaction.RuleRateLimited || a.Extra["seconds"] == "" {
		t.Fatalf("note holds the account: %+v, want a wait by rule rate-limited", a)
	}
	if n := len(events(t, st, record.EventRateLimited)); n != 1 {
		t.Errorf("%d RATE_LIMITED events, want the wait recorded once", n)
	}

	_, in = rateLimitedRun(t, 10, time.Second)
	if a := nextaction.Decide(in, nextaction.Rules); a.Kind != nextaction.Stop || a.Status != record.RunPaused || a.Rule != nextaction.RuleRateLimited {
		t.Errorf("past max_wait: %+v, want a pause by rule rate-limited", a)
	}

	st, in = rateLimitedRun(t, 1, time.Hour)
	if a := nextaction.Decide(in, nextaction.Rules); a.Kind != nextaction.Stop || a.Rule != "out-of-iterations" {
		t.Errorf("out of iterations and rate-limited: %+v, want the stop rule first", a)
	}
	if n := len(events(t, st, record.EventRateLimited)); n != 0 {
		t.Errorf("%d RATE_LIMITED events recorded for a run that stopped first", n)
	}

	// without a writer (a reader's decision) the rule says nothing
	_, in = rateLimitedRun(t, 10, time.Hour)
	in.Record = nil
	if a := nextaction.Decide(in, nextaction.Rules); a.Kind != nextaction.Iterate {
		t.Errorf("no writer: %+v, want iterate", a)
	}
}

// A rate-limit wait counts toward --max-duration (the driver works while
// it waits): one that would reach the cap pauses the run at once, rather
// than waiting out the reset to fail it "over duration" long past its cap.
func TestRateLimitWaitPastMaxDuration(t *testing.T) {
	st, in := rateLimitedRun(t, 10, time.Hour)
	in.Run.Settings.MaxDuration = runconfig.Duration(30 * time.Second) // the note holds a minute
	in.Run.Settings.DrivenAt = in.Now.UnixMilli()
	a := nextaction.Decide(in, nextaction.Rules)
	if a.Kind != nextaction.Stop || a.Status != record.RunPaused || a.Rule != nextaction.RuleRateLimited ||
		!strings.Contains(a.Reason, "would pass --max-duration 30s") {
		t.Fatalf("a minute's wait under --max-duration 30s: %+v, want a pause naming the cap", a)
	}
	if n := len(events(t, st, record.EventRateLimited)); n != 0 {
		t.Errorf("%d RATE_LIMITED events, want none for a wait not taken", n)
	}

	_, in = rateLimitedRun(t, 10, time.Hour)
	in.Run.Settings.MaxDuration = runconfig.Duration(time.Hour)
	in.Run.Settings.DrivenAt = in.Now.UnixMilli()
	if a := nextaction.Decide(in, nextaction.Rules); a.Kind != nextaction.Wait {
		t.Errorf("a minute's wait with an hour left: %+v, want the wait", a)
	}
}
