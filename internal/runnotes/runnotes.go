// Package runnotes gathers what the next implementation prompt of a run
// must carry beyond the progress block: a reviewer's requested changes and
// a failed final verification of the last iteration. Both are read from
// the store, so a resumed driver prompts exactly as a running one would.
package runnotes

import (
	"encoding/json"
	"errors"
	"os"
	"strings"

	"github.com/loopkit/loopkit/internal/finalverify"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/recorder"
	"github.com/loopkit/loopkit/internal/review"
	"github.com/loopkit/loopkit/internal/store"
)

// Settings keys read here.
const (
	ReviewMarkerKey = "review_marker"
)

// MaxOutputChars bounds the failing command's output quoted in the notes.
const MaxOutputChars = 2000

// Load returns the notes for the run's next implementation step ("" when
// there are none).
func Load(st *store.Store, id string) (string, error) {
	run, err := st.ReadRun(id)
	if err != nil {
		return "", err
	}
	last, _, err := st.LastIteration(id)
	if err != nil || last == nil {
		return "", err
	}
	var parts []string
	if v, ok, err := LastReview(st, id, last.Iteration, run.Settings[ReviewMarkerKey]); err != nil {
		return "", err
	} else if ok && v.Kind != review.Approve {
		parts = append(parts, review.NextPrompt(last.Iteration, v))
	}
	cmds, err := finalverify.Commands(run.Settings[finalverify.SettingKey])
	if err != nil || len(cmds) == 0 {
		return strings.Join(parts, "\n"), err
	}
	vs, err := recorder.ReadVerifications(st.RunPath(id, store.VerifyFile))
	if err != nil {
		return "", err
	}
	if s := finalverify.Of(cmds, vs, last.Iteration); s.Failed != nil {
		parts = append(parts, finalverify.Notes(s.Failed, MaxOutputChars))
	}
	return strings.Join(parts, "\n"), nil
}

// attempt is the part of an attempts.jsonl line a review decision reads.
type attempt struct {
	Kind      string `json:"kind"`
	Iteration int    `json:"iteration"`
	Agent     *struct {
		FinalMessage string `json:"final_message"`
	} `json:"agent"`
}

// LastReview is the verdict of the latest reviewer attempt on iteration n.
func LastReview(st *store.Store, id string, n int, marker string) (review.Verdict, bool, error) {
	var v review.Verdict
	found := false
	err := store.ScanFile(st.RunPath(id, store.AttemptsFile), func(_ int, line []byte) error {
		var a attempt
		if json.Unmarshal(line, &a) != nil || a.Kind != record.AttemptReviewer || a.Iteration != n {
			return nil
		}
		msg := ""
		if a.Agent != nil {
			msg = a.Agent.FinalMessage
		}
		v, found = review.Parse(msg, marker), true
		return nil
	})
	if errors.Is(err, os.ErrNotExist) {
		return v, false, nil
	}
	return v, found, err
}
