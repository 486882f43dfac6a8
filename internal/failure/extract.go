package failure

import (
	"slices"

	"github.com/loopkit/loopkit/internal/record"
)

// Limits of what Extract keeps, so that a run of thousands of failing
// tests still makes a small record.
const (
	MaxTests       = 50
	MaxTestChars   = 200
	MaxMessageChar = 200
)

// Extract lists the failing tests an output names, in order of appearance,
// each once, with the first line of its message (best effort: empty when
// the framework is not recognised).
func Extract(output string) []record.Failure {
	lines := splitLines(Strip(output))
	tests := analyze(lines).tests
	slices.SortStableFunc(tests, func(a, b test) int { return a.at - b.at })
	out := []record.Failure{}
	index := map[string]int{}
	for _, t := range tests {
		if t.name == "" {
			continue
		}
		if i, ok := index[t.name]; ok {
			if out[i].Message == "" {
				out[i].Message = record.HeadChars(t.msg, MaxMessageChar)
			}
			continue
		}
		if len(out) == MaxTests {
			continue
		}
		index[t.name] = len(out)
		out = append(out, record.Failure{Test: record.HeadChars(t.name, MaxTestChars), Message: record.HeadChars(t.msg, MaxMessageChar)})
	}
	return out
}
