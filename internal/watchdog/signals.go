// Package watchdog tells from a run's log when its loop has stopped making
// progress: the same failure again and again, no change or the same change,
// the same tool calls, a completion claim that does not hold, an edit undone.
// It reads only the last few iterations, from the end of the log, and its
// decisions (signals, prompt rewrites) are recorded in the run.
package watchdog

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/loopkit/loopkit/internal/record"
)

// Signal names.
const (
	VerificationFailed = "verification_failed"
	NoProgress         = "no_progress"
	RepeatedTask       = "repeated_task"
	MalformedComplete  = "malformed_complete"
	Oscillation        = "oscillation"
)

// DefaultK is how many earlier iterations a signal compares with: with 2, a
// repeated failure fires on its third occurrence.
const DefaultK = 2

// EmptyDiff is the diff digest of an iteration that changed nothing: the
// SHA-256 of nothing (TestEmptyDiff).
const EmptyDiff = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// Iteration is one iteration as the watchdog sees it: its log line and,
// for the last two, the blob changes of its diff.
type Iteration struct {
	Log     *record.IterationLog
	Changes map[string]blobChange
}

// Evaluate returns every signal that fires at the last iteration of window
// (oldest first; at most k earlier iterations are looked at).
func Evaluate(window []Iteration, k int) []record.Signal {
	if len(window) == 0 {
		return nil
	}
	if k < 1 {
		k = 1
	}
	if len(window) > k+1 {
		window = window[len(window)-k-1:]
	}
	cur := window[len(window)-1]
	earlier := window[:len(window)-1]
	var out []record.Signal
	for _, f := range []func(Iteration, []Iteration, int) *record.Signal{
		verificationFailed, noProgress, repeatedTask, malformedComplete, oscillation,
	} {
		if s := f(cur, earlier, k); s != nil {
			s.Iteration = cur.Log.Iteration
			out = append(out, *s)
		}
	}
	return out
}

// numbers lists the iteration numbers of its and cur.
func numbers(its []Iteration, cur Iteration) []int {
	out := make([]int, 0, len(its)+1)
	for _, it := range its {
		out = append(out, it.Log.Iteration)
	}
	return append(out, cur.Log.Iteration)
}

func itoa(n int) string { return strconv.Itoa(n) }

func join(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = itoa(n)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// verificationFailed: the validation failed the same way in this iteration
// and in each of the k before it.
func verificationFailed(cur Iteration, earlier []Iteration, k int) *record.Signal {
	f := Failure(cur.Log)
	if f == "" || len(earlier) < k {
		return nil
	}
	for _, e := range earlier {
		if Failure(e.Log) != f {
			return nil
		}
	}
	ns := numbers(earlier, cur)
	return &record.Signal{Name: VerificationFailed, Iterations: ns,
		Evidence: fmt.Sprintf("iterations %s failed the validation with the same message: %s", join(ns), FailureLine(cur.Log))}
}

// changedNothing: the diff is known and empty, or (outside git) no file is
// listed as changed. A list that is null (the tree was not recorded) is
// unknown: no evidence.
func changedNothing(it *record.IterationLog) bool {
	if it.DiffDigest != "" {
		return it.DiffDigest == EmptyDiff
	}
	return it.FilesChanged != nil && len(it.FilesChanged) == 0
}

// noProgress: no file changed in this iteration and the k before it, or this
// iteration made exactly the change one of the k before it made.
func noProgress(cur Iteration, earlier []Iteration, k int) *record.Signal {
	d := cur.Log.DiffDigest
	if d == "" {
		return nil // changes unknown: no evidence either way
	}
	if d == EmptyDiff {
		if len(earlier) < k {
			return nil
		}
		for _, e := range earlier {
			if e.Log.DiffDigest != EmptyDiff {
				return nil
			}
		}
		ns := numbers(earlier, cur)
		return &record.Signal{Name: NoProgress, Iterations: ns, Evidence: fmt.Sprintf("iterations %s changed no files", join(ns))}
	}
	for i := len(earlier) - 1; i >= 0; i-- {
		if earlier[i].Log.DiffDigest == d {
			n := earlier[i].Log.Iteration
			return &record.Signal{Name: NoProgress, Iterations: []int{n, cur.Log.Iteration},
				Evidence: fmt.Sprintf("iteration %d made exactly the change iteration %d made (%s: %s)", cur.Log.Iteration, n, strings.Join(cur.Log.FilesChanged, ", "), shortDigest(d))}
		}
	}
	return nil
}

func shortDigest(d string) string {
	if len(d) > len("sha256:")+12 {
		return d[:len("sha256:")+12]
	}
	return d
}

// toolKey is an iteration's tool calls with their arguments, in order.
func toolKey(it *record.IterationLog) string {
	var b strings.Builder
	for _, c := range it.ToolCalls {
		b.WriteString(c.ToolName)
		b.WriteByte(0)
		b.WriteString(c.ArgumentsSummary)
		b.WriteByte('\n')
	}
	return b.String()
}

// repeatedTask: the same tool calls with the same arguments as one of the k
// earlier iterations, and no file changed.
func repeatedTask(cur Iteration, earlier []Iteration, _ int) *record.Signal {
	key := toolKey(cur.Log)
	if key == "" || !changedNothing(cur.Log) {
		return nil
	}
	for i := len(earlier) - 1; i >= 0; i-- {
		if toolKey(earlier[i].Log) == key {
			n := earlier[i].Log.Iteration
			c := cur.Log.ToolCalls[0]
			calls := c.ToolName + " " + c.ArgumentsSummary
			if more := len(cur.Log.ToolCalls) - 1; more > 0 {
				calls += fmt.Sprintf(" and %d more", more)
			}
			return &record.Signal{Name: RepeatedTask, Iterations: []int{n, cur.Log.Iteration},
				Evidence: fmt.Sprintf("iterations %d and %d made the same tool calls (%s) and changed no files", n, cur.Log.Iteration, calls)}
		}
	}
	return nil
}

// malformedWhy says how an iteration's completion claim was wrong, or "".
func malformedWhy(it *record.IterationLog) string {
	a := it.Agent
	switch {
	case a == nil:
		return ""
	case a.CompletionMalformed:
		return "the completion marker was not where the completion mode accepts it"
	case a.Completed && it.Status != record.StatusPass:
		return "the agent said the task was complete but the validation failed"
	}
	return ""
}

// malformedComplete: this iteration and the k before it all claimed
// completion wrongly.
func malformedComplete(cur Iteration, earlier []Iteration, k int) *record.Signal {
	why := malformedWhy(cur.Log)
	if why == "" || len(earlier) < k {
		return nil
	}
	for _, e := range earlier {
		if malformedWhy(e.Log) == "" {
			return nil
		}
	}
	ns := numbers(earlier, cur)
	return &record.Signal{Name: MalformedComplete, Iterations: ns, Evidence: fmt.Sprintf("iterations %s: %s", join(ns), why)}
}

// oscillation: this iteration's diff undoes the previous iteration's.
func oscillation(cur Iteration, earlier []Iteration, _ int) *record.Signal {
	if len(earlier) == 0 {
		return nil
	}
	prev := earlier[len(earlier)-1]
	if prev.Log.Iteration != cur.Log.Iteration-1 {
		return nil
	}
	files, ok := undoes(cur.Changes, prev.Changes)
	if !ok {
		return nil
	}
	return &record.Signal{Name: Oscillation, Iterations: []int{prev.Log.Iteration, cur.Log.Iteration},
		Evidence: fmt.Sprintf("iteration %d undid the change iteration %d made to %s", cur.Log.Iteration, prev.Log.Iteration, strings.Join(files, ", "))}
}
