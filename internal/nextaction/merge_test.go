package nextaction

import (
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/finalverify"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
)

// The merge rule: after everything the completed rule waits for, before
// the run is marked completed.
func TestMergeRule(t *testing.T) {
	pass := &record.IterationLog{Iteration: 3, Status: record.StatusPass}
	fail := &record.IterationLog{Iteration: 3, Status: record.StatusFail, ExitCode: 1}
	wt := map[string]string{KeyMergeTarget: "agent/x", KeyRunBranch: "run/x"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range wt {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	merged := &record.Merge{Iteration: 3, Status: record.MergeMerged}
	for _, c := range []struct {
		name     string
		settings map[string]string
		last     *record.IterationLog
		merge    *record.Merge
		phases   Phases
		kind     string
		rule     string
		strategy string
	}{
		{"no target: completed", map[string]string{KeyRunBranch: "run/x"}, pass, nil, Phases{}, Stop, "completed", ""},
		{"no worktree: completed", map[string]string{KeyMergeTarget: "agent/x"}, pass, nil, Phases{}, Stop, "completed", ""},
		{"strategy none: completed", with(KeyMergeStrategy, "none"), pass, nil, Phases{}, Stop, "completed", ""},
		{"passed: merge, squash by default", wt, pass, nil, Phases{}, Merge, "merge", "squash"},
		{"strategy merge", with(KeyMergeStrategy, "merge"), pass, nil, Phases{}, Merge, "merge", "merge"},
		{"failed validation: next iteration", wt, fail, nil, Phases{}, Iterate, "next", ""},
		{"not approved: next iteration", with(KeyReviewer, "r"), pass, nil, Phases{}, Iterate, "next", ""},
		{"approved: merge", with(KeyReviewer, "r"), &record.IterationLog{Iteration: 3, Status: record.StatusPass, Review: &record.Review{Verdict: "approve"}}, nil, Phases{}, Merge, "merge", "squash"},
		{"final verification first", with(KeyFinalVerify, `["a"]`), pass, nil,
			Phases{Verify: finalverify.State{Next: "a", NextIndex: 1}}, Verify, "final-verify", ""},
		{"merged: completed", wt, pass, merged, Phases{}, Stop, "completed", ""},
		{"started, never ended: again", wt, pass, &record.Merge{Iteration: 3, Status: record.MergeStarted}, Phases{}, Merge, "merge", "squash"},
		{"merged at another iteration: again", wt, pass, &record.Merge{Iteration: 2, Status: record.MergeMerged}, Phases{}, Merge, "merge", "squash"},
		{"failed: the run fails", wt, pass, &record.Merge{Iteration: 3, Status: record.MergeFailed, Error: "conflicts in a.go"}, Phases{}, Stop, "merge", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			set := map[string]string{KeyMaxIterations: "5"}
			for k, v := range c.settings {
				set[k] = v
			}
			in := &Input{Run: &record.Run{Status: record.RunRunning, Settings: runconfig.MustFromMap(set), Merge: c.merge}, Recent: []*record.IterationLog{c.last}, Phases: c.phases}
			a := Decide(in, Rules)
			if a.Kind != c.kind || a.Rule != c.rule || a.Extra["strategy"] != c.strategy {
				t.Fatalf("Decide = %+v, want %s by %s (strategy %q)", a, c.kind, c.rule, c.strategy)
			}
			if a.Kind == Merge && (a.Extra["target"] != "agent/x" || a.Iteration != 3) {
				t.Errorf("merge action %+v", a)
			}
			if a.Kind == Stop && a.Rule == "merge" {
				if a.Status != record.RunFailed || a.Exit != exitcode.Failed || !strings.Contains(a.Reason, "merge failed: conflicts in a.go") {
					t.Errorf("stop %+v", a)
				}
			}
		})
	}
}
