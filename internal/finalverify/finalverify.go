// Package finalverify decides the final verification: the commands that
// must pass, once completion is detected, before a run is completed.
package finalverify

import (
	"fmt"
	"strings"

	"github.com/loopkit/loopkit/internal/record"
)

// State is where the final verification of one iteration stands.
type State struct {
	// Next is the next command to run (index NextIndex); "" when none is left.
	Next      string
	NextIndex int
	// Failed is the failing command's record, when one failed: the
	// verification stops there and the implementation step runs again.
	Failed *record.Verification
}

// Passed reports that every command passed.
func (s State) Passed() bool { return s.Next == "" && s.Failed == nil }

// Of reads the verification of iteration n from the run's verify.jsonl
// lines: commands run in order, each one's latest record for n counts, and
// the first that did not pass stops the verification.
func Of(cmds []string, vs []*record.Verification, n int) State {
	latest := map[string]*record.Verification{}
	for _, v := range vs {
		if v.Iteration == n {
			latest[v.Command] = v
		}
	}
	for i, c := range cmds {
		v := latest[c]
		switch {
		case v == nil:
			return State{Next: c, NextIndex: i + 1}
		case v.Status != record.StatusPass:
			return State{Failed: v}
		}
	}
	return State{}
}

// Notes are the runner notes the next implementation prompt carries after a
// failed final verification.
func Notes(v *record.Verification, maxChars int) string {
	out := v.Stdout
	if strings.TrimSpace(out) == "" {
		out = v.Stderr
	}
	tail, cut := record.TailChars(out, maxChars)
	var b strings.Builder
	fmt.Fprintf(&b, "## Runner Notes\n\nIteration %d passed its checks and said it was complete, but the final verification failed, so the work is not accepted yet. Fix what this command reports:\n\n", v.Iteration)
	fmt.Fprintf(&b, "**Command:** `%s`\n**Exit code:** %d\n", v.Command, v.ExitCode)
	if v.Error != nil {
		fmt.Fprintf(&b, "**Error:** %s\n", *v.Error)
	}
	if v.PlanAdvancedOnFailure {
		b.WriteString("**Plan:** boxes were ticked for work this command refuses; untick what does not pass.\n")
	}
	text := strings.TrimSpace(tail)
	if cut {
		text = "...[truncated]...\n" + text
	}
	fence := record.Fence(text) // the output is the agent's: it cannot close the block
	b.WriteString("**Output:**\n" + fence + "\n" + text + "\n" + fence + "\n")
	return b.String()
}
