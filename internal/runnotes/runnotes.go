// Package runnotes gathers what the next implementation prompt of a run
// must carry beyond the progress block: a reviewer's requested changes and
// a failed final verification of the last iteration. Both are read from
// the store, so a resumed driver prompts exactly as a running one would.
package runnotes

import (
	"strings"

	"github.com/loopkit/loopkit/internal/finalverify"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/review"
	"github.com/loopkit/loopkit/internal/store"
)

// MaxOutputChars bounds the failing command's output quoted in the notes.
const MaxOutputChars = 2000

// Load returns the notes for the next implementation step of the run id,
// whose record (read by the caller) is run ("" when there are none).
func Load(st *store.Store, id string, run *record.Run) (string, error) {
	last, err := st.PeekLastIteration(id)
	if err != nil || last == nil {
		return "", err
	}
	var parts []string
	if r := last.Review; r != nil && r.Verdict != review.Approve {
		parts = append(parts, review.NextPrompt(last.Iteration, review.Verdict{Kind: r.Verdict, Notes: r.Notes}))
	}
	cmds := run.Settings.FinalVerify
	if len(cmds) == 0 {
		return strings.Join(parts, "\n"), nil
	}
	vs, err := st.ReadVerifications(id)
	if err != nil {
		return "", err
	}
	if s := finalverify.Of(cmds, vs, last.Iteration); s.Failed != nil {
		parts = append(parts, finalverify.Notes(s.Failed, MaxOutputChars))
	}
	return strings.Join(parts, "\n"), nil
}
