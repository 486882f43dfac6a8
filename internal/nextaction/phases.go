package nextaction

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/loopkit/loopkit/internal/finalverify"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/review"
	"github.com/loopkit/loopkit/internal/store"
)

// Verify is the action that runs one final verification command:
// Extra["command"]. (The reviewer is no action of its own: an Iterate
// action with Extra["review"] runs it between the step and the validation.)
const Verify = "verify"

// Phases is what the final verification rules read beyond the log:
// filled by Load.
type Phases struct {
	// Verify is where the last iteration's final verification stands.
	Verify finalverify.State
}

// loadPhases reads the final verifications of the last iteration.
func (in *Input) loadPhases(st *store.Store, id string) error {
	it := in.Last()
	if it == nil {
		return nil
	}
	cmds := in.Set().FinalVerify
	if len(cmds) == 0 {
		return nil
	}
	vs, err := st.ReadVerifications(id)
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
	return !in.Set().RequireCompletion || it.Agent != nil && it.Agent.Completed
}

// accepted: nothing stands between a detected completion and completed:
// the reviewer approved (when there is one) and every final verification
// command passed (when there are some).
func accepted(in *Input) bool {
	return approved(in) && in.Phases.Verify.Passed()
}

// approved: no reviewer is set, or it approved the last iteration's step
// (an iteration recorded without a review, before the reviewer was set,
// is not approved: the next one is reviewed).
func approved(in *Input) bool {
	if in.Set().Reviewer == "" {
		return true
	}
	it := in.Last()
	return it != nil && it.Review != nil && it.Review.Verdict == review.Approve
}

// finalVerify: completion is detected and approved; a final verification
// command of the last iteration has not run yet.
func finalVerify(in *Input) (Action, bool) {
	s := in.Phases.Verify
	if s.Next == "" || !completionDetected(in) {
		return Action{}, false
	}
	if !approved(in) {
		return Action{}, false
	}
	a := Action{Kind: Verify, Iteration: in.LastNumber(), Extra: map[string]string{
		"command": s.Next, "index": strconv.Itoa(s.NextIndex)}}
	if d := deadline(in); d != "" { // stopped at --max-duration, as the validation
		a.Extra["deadline_ms"] = d
	}
	return a, true
}

// reviewerCannotRun: since the latest resume, the last iteration's
// reviewer could not start (126/127) or said it may not work (not logged
// in): no iteration can be approved, and each further one is a paid step
// for nothing. A resume, once the person fixed it, reviews again.
func reviewerCannotRun(in *Input) (Action, bool) {
	since := in.SinceResume()
	if len(since) == 0 || in.Set().Reviewer == "" {
		return Action{}, false
	}
	r := since[len(since)-1].Review
	if r == nil || !r.CannotWork {
		return Action{}, false
	}
	why := strings.TrimPrefix(r.Notes, "the reviewer's call failed: ")
	return stop(record.RunFailed, "reviewer cannot run: "+headChars(why, WhyChars)), true
}

// finalVerifyCannotRun: the last iteration, since the latest resume, was
// done, but a final verification command could not start (its sh said
// so, 126/127): every further step would be paid for a check that
// cannot pass, as validationCannotRun.
func finalVerifyCannotRun(in *Input) (Action, bool) {
	v, since := in.Phases.Verify.Failed, in.SinceResume()
	if v == nil || !v.CannotRun || len(since) == 0 || v.Iteration != since[len(since)-1].Iteration {
		return Action{}, false
	}
	lines := strings.Split(strings.TrimSpace(v.Stderr), "\n")
	why := headChars(strings.TrimSpace(lines[len(lines)-1]), WhyChars)
	return stop(record.RunFailed, fmt.Sprintf("final verification cannot run: %s: %s (exit %d)", headChars(v.Command, WhyChars), why, v.ExitCode)), true
}
