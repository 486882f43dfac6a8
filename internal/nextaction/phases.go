package nextaction

import (
	"strconv"

	"github.com/loopkit/loopkit/internal/finalverify"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/recorder"
	"github.com/loopkit/loopkit/internal/review"
	"github.com/loopkit/loopkit/internal/runnotes"
	"github.com/loopkit/loopkit/internal/store"
)

// Action kinds of the reviewer and the final verification.
const (
	// Review runs the reviewer on iteration Iteration (loop-step --review).
	Review = "review"
	// Verify runs one final verification command: Extra["command"].
	Verify = "verify"
)

// Settings keys of the phases.
const (
	KeyReviewer    = "reviewer"
	KeyFinalVerify = finalverify.SettingKey
)

// Phases is what the reviewer and final verification rules read beyond
// the log: filled by Load.
type Phases struct {
	// Reviewed: the last iteration has a reviewer attempt; Verdict is the
	// latest one's.
	Reviewed bool
	Verdict  review.Verdict
	// Verify is where the last iteration's final verification stands.
	Verify finalverify.State
	// VerifyErr: the commands setting could not be read.
	VerifyErr error
}

// loadPhases reads the reviewer attempts and final verifications of the
// last iteration.
func (in *Input) loadPhases(st *store.Store, id string) error {
	it := in.Last()
	if it == nil {
		return nil
	}
	if in.Setting(KeyReviewer) != "" {
		v, ok, err := runnotes.LastReview(st, id, it.Iteration, in.Setting(runnotes.ReviewMarkerKey))
		if err != nil {
			return err
		}
		in.Phases.Reviewed, in.Phases.Verdict = ok, v
	}
	cmds, err := finalverify.Commands(in.Setting(KeyFinalVerify))
	if err != nil {
		in.Phases.VerifyErr = err
		return nil
	}
	if len(cmds) == 0 {
		return nil
	}
	vs, err := recorder.ReadVerifications(st.RunPath(id, store.VerifyFile))
	if err != nil {
		return err
	}
	in.Phases.Verify = finalverify.Of(cmds, vs, it.Iteration)
	return nil
}

// completionDetected: the last iteration's validation passed (and the
// agent said it was done, when that is required).
func completionDetected(in *Input) bool {
	it := in.Last()
	if it == nil || it.Status != record.StatusPass {
		return false
	}
	return !in.Flag(KeyRequireCompletion) || it.Agent != nil && it.Agent.Completed
}

// accepted: nothing stands between a detected completion and completed:
// the reviewer approved (when there is one) and every final verification
// command passed (when there are some).
func accepted(in *Input) bool {
	if in.Setting(KeyReviewer) != "" && (!in.Phases.Reviewed || in.Phases.Verdict.Kind != review.Approve) {
		return false
	}
	return in.Phases.Verify.Passed()
}

// reviewIteration: a reviewer is set and the last iteration (since the
// latest resume) has not been reviewed yet.
func reviewIteration(in *Input) (Action, bool) {
	since := in.SinceResume()
	if in.Setting(KeyReviewer) == "" || len(since) == 0 || in.Phases.Reviewed {
		return Action{}, false
	}
	it := since[len(since)-1]
	return Action{Kind: Review, Iteration: it.Iteration, Prompt: in.Prompt()}, true
}

// finalVerify: completion is detected and approved; a final verification
// command of the last iteration has not run yet.
func finalVerify(in *Input) (Action, bool) {
	if in.Phases.VerifyErr != nil {
		return stop(record.RunFailed, in.Phases.VerifyErr.Error()), true
	}
	s := in.Phases.Verify
	if s.Next == "" || !completionDetected(in) {
		return Action{}, false
	}
	if in.Setting(KeyReviewer) != "" && in.Phases.Verdict.Kind != review.Approve {
		return Action{}, false
	}
	return Action{Kind: Verify, Iteration: in.LastNumber(), Extra: map[string]string{
		"command": s.Next, "index": strconv.Itoa(s.NextIndex)}}, true
}
