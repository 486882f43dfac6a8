package nextaction

import (
	"testing"

	"github.com/loopkit/loopkit/internal/finalverify"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/review"
)

// The reviewer and final verification rules, from what Load would read.
func TestPhaseRules(t *testing.T) {
	pass := &record.IterationLog{Iteration: 2, Status: record.StatusPass}
	fail := &record.IterationLog{Iteration: 2, Status: record.StatusFail, ExitCode: 1}
	approve := review.Verdict{Kind: review.Approve}
	changes := review.Verdict{Kind: review.Changes, Notes: "x"}
	failed := &record.Verification{Iteration: 2, Command: "b", Status: record.StatusFail}
	for _, c := range []struct {
		name     string
		settings map[string]string
		last     *record.IterationLog
		phases   Phases
		kind     string
		rule     string
		extra    string
	}{
		{"no phases: completed", nil, pass, Phases{}, Stop, "completed", ""},
		{"reviewer, not reviewed yet", map[string]string{KeyReviewer: "r"}, pass, Phases{}, Review, "review", ""},
		{"failing iteration is reviewed too", map[string]string{KeyReviewer: "r"}, fail, Phases{}, Review, "review", ""},
		{"changes requested: next iteration", map[string]string{KeyReviewer: "r"}, pass, Phases{Reviewed: true, Verdict: changes}, Iterate, "next", ""},
		{"approved: completed", map[string]string{KeyReviewer: "r"}, pass, Phases{Reviewed: true, Verdict: approve}, Stop, "completed", ""},
		{"approved, verification to run", map[string]string{KeyReviewer: "r", KeyFinalVerify: `["a","b"]`}, pass,
			Phases{Reviewed: true, Verdict: approve, Verify: finalverify.State{Next: "b", NextIndex: 2}}, Verify, "final-verify", "b"},
		{"changes requested: no verification", map[string]string{KeyReviewer: "r", KeyFinalVerify: `["a"]`}, pass,
			Phases{Reviewed: true, Verdict: changes, Verify: finalverify.State{Next: "a", NextIndex: 1}}, Iterate, "next", ""},
		{"verification failed: requeued", map[string]string{KeyFinalVerify: `["a","b"]`}, pass,
			Phases{Verify: finalverify.State{Failed: failed}}, Iterate, "next", ""},
		{"verification passed: completed", map[string]string{KeyFinalVerify: `["a","b"]`}, pass, Phases{}, Stop, "completed", ""},
		{"validation failed: no verification", map[string]string{KeyFinalVerify: `["a"]`}, fail,
			Phases{Verify: finalverify.State{Next: "a", NextIndex: 1}}, Iterate, "next", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			set := map[string]string{KeyMaxIterations: "5"}
			for k, v := range c.settings {
				set[k] = v
			}
			in := &Input{Run: &record.Run{Status: record.RunRunning, Settings: set}, Recent: []*record.IterationLog{c.last}, Phases: c.phases}
			a := Decide(in, Rules)
			if a.Kind != c.kind || a.Rule != c.rule || a.Extra["command"] != c.extra {
				t.Errorf("Decide = %+v, want %s by %s (command %q)", a, c.kind, c.rule, c.extra)
			}
			if a.Kind == Stop && a.Status != record.RunCompleted {
				t.Errorf("stopped %s: %s", a.Status, a.Reason)
			}
		})
	}
}
