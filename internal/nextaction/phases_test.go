package nextaction

import (
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/finalverify"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/review"
	"github.com/loopkit/loopkit/internal/runconfig"
)

// The reviewer and final verification rules, from what Load would read.
func TestPhaseRules(t *testing.T) {
	pass := &record.IterationLog{Iteration: 2, Status: record.StatusPass}
	fail := &record.IterationLog{Iteration: 2, Status: record.StatusFail, ExitCode: 1}
	reviewed := func(it *record.IterationLog, verdict string) *record.IterationLog {
		c := *it
		c.Review = &record.Review{Verdict: verdict, Attempt: 1}
		return &c
	}
	rev := map[string]string{KeyReviewer: "r"}
	failed := &record.Verification{Iteration: 2, Command: "b", Status: record.StatusFail}
	// a reviewer or a final verification that cannot start fails the run
	// at once: every further step would be paid for nothing
	cannotReview := func(it *record.IterationLog) *record.IterationLog {
		c := *it
		c.Review = &record.Review{Verdict: review.None, Notes: "the reviewer's call failed: exit status 127", Attempt: 1, CannotWork: true}
		return &c
	}
	cannotVerify := &record.Verification{Iteration: 2, Command: "b", Status: record.StatusFail, ExitCode: 127, Stderr: "sh: 1: b: not found", CannotRun: true}
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
		{"reviewer, iteration not reviewed (set later)", rev, pass, Phases{}, Iterate, "next", ""},
		{"failing iteration approved: next, reviewed", rev, reviewed(fail, review.Approve), Phases{}, Iterate, "next", ""},
		{"changes requested: next iteration", rev, reviewed(pass, review.Changes), Phases{}, Iterate, "next", ""},
		{"no verdict: next iteration", rev, reviewed(pass, review.None), Phases{}, Iterate, "next", ""},
		{"approved: completed", rev, reviewed(pass, review.Approve), Phases{}, Stop, "completed", ""},
		{"approved, verification to run", map[string]string{KeyReviewer: "r", KeyFinalVerify: `["a","b"]`}, reviewed(pass, review.Approve),
			Phases{Verify: finalverify.State{Next: "b", NextIndex: 2}}, Verify, "final-verify", "b"},
		{"changes requested: no verification", map[string]string{KeyReviewer: "r", KeyFinalVerify: `["a"]`}, reviewed(pass, review.Changes),
			Phases{Verify: finalverify.State{Next: "a", NextIndex: 1}}, Iterate, "next", ""},
		{"verification failed: requeued", map[string]string{KeyFinalVerify: `["a","b"]`}, pass,
			Phases{Verify: finalverify.State{Failed: failed}}, Iterate, "next", ""},
		{"reviewer could not start: failed", rev, cannotReview(pass), Phases{}, Stop, "reviewer-cannot-run", ""},
		{"reviewer could not start before the resume: next", map[string]string{KeyReviewer: "r", KeyResumedAfter: "2"}, cannotReview(pass), Phases{}, Iterate, "next", ""},
		{"verification could not start: failed", map[string]string{KeyFinalVerify: `["a","b"]`}, pass,
			Phases{Verify: finalverify.State{Failed: cannotVerify}}, Stop, "final-verify-cannot-run", ""},
		{"verification could not start before the resume: next", map[string]string{KeyFinalVerify: `["a","b"]`, KeyResumedAfter: "2"}, pass,
			Phases{Verify: finalverify.State{Failed: cannotVerify}}, Iterate, "next", ""},
		{"verification passed: completed", map[string]string{KeyFinalVerify: `["a","b"]`}, pass, Phases{}, Stop, "completed", ""},
		{"validation failed: no verification", map[string]string{KeyFinalVerify: `["a"]`}, fail,
			Phases{Verify: finalverify.State{Next: "a", NextIndex: 1}}, Iterate, "next", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			set := map[string]string{KeyMaxIterations: "5"}
			for k, v := range c.settings {
				set[k] = v
			}
			in := &Input{Run: &record.Run{Status: record.RunRunning, Settings: runconfig.MustFromMap(set)}, Recent: []*record.IterationLog{c.last}, Phases: c.phases}
			a := Decide(in, Rules)
			if a.Kind != c.kind || a.Rule != c.rule || a.Extra["command"] != c.extra {
				t.Errorf("Decide = %+v, want %s by %s (command %q)", a, c.kind, c.rule, c.extra)
			}
			if want := map[bool]string{true: "1"}[c.settings[KeyReviewer] != "" && a.Kind == Iterate]; a.Extra["review"] != want {
				t.Errorf("review=%q, want %q: the reviewer runs in every iteration when set", a.Extra["review"], want)
			}
			if a.Kind == Stop && a.Status != record.RunCompleted && !strings.Contains(a.Rule, "cannot-run") {
				t.Errorf("stopped %s: %s", a.Status, a.Reason)
			}
		})
	}
}
