package loopstep

import (
	"fmt"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/progress"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/review"
	"github.com/loopkit/loopkit/internal/runnotes"
	"github.com/loopkit/loopkit/internal/store"
)

// phasePrompt turns the task prompt into the phase's prompt: a review of
// the step recorded in --review (returned too: it ends as the review
// starts), or for an implementation step of a run, the task with the
// run's notes (a reviewer's requested changes, a failed final
// verification) after it.
func phasePrompt(env *cli.Env, st *store.Store, opts *Options, readRun func() (*record.Run, error), prompt string) (string, *record.Step, error) {
	if opts.Review != "" {
		if opts.Run == "" || !st.RunExists(opts.Run) {
			return "", nil, env.UsageError("--review needs the --run whose step it reviews")
		}
		s, err := reviewedStep(opts.Review)
		if err != nil {
			return "", nil, err
		}
		diff, n, err := reviewDiff(st, opts.Run, opts.Review, s)
		if err != nil {
			return "", nil, err
		}
		// the task is the run's template: its progress markers are for
		// the implementation steps, and no marker reaches the reviewer raw
		task, _ := progress.Fill(prompt, "", nil, false)
		return review.Prompt(task, reviewPlan(env, opts.Plan), diff, opts.ReviewMarker, n), s, nil
	}
	if opts.Phase != "implementation" || opts.Run == "" || !st.RunExists(opts.Run) {
		return prompt, nil, nil
	}
	run, err := readRun()
	if err != nil {
		return "", nil, cli.Failf("run notes: %w", err)
	}
	notes, err := runnotes.Load(st, opts.Run, run)
	if err != nil {
		return "", nil, cli.Failf("run notes: %w", err)
	}
	if notes == "" {
		return prompt, nil, nil
	}
	return prompt + "\n\n" + notes, nil, nil
}

// verdict fills a review step's verdict from the agent's final message.
func (s *stepRun) verdict(rec *record.Step) {
	if s.opts.Review == "" {
		return // a review-phase step of something else (a stuck report)
	}
	v := review.Parse(rec.FinalMessage, s.opts.ReviewMarker)
	// A call that failed (crashed, cut at its timeout, stream unfinished)
	// gives no verdict whatever its text holds: a reviewer quoting the
	// instructions, or the agent's diff, before it died did not approve.
	switch {
	case rec.Error != nil && *rec.Error != "":
		v = review.Verdict{Kind: review.None, Notes: "the reviewer's call failed: " + *rec.Error}
	case rec.ExitCode != nil && *rec.ExitCode != 0 && !rec.KilledAfterResult:
		v = review.Verdict{Kind: review.None, Notes: fmt.Sprintf("the reviewer's call failed: exit status %d", *rec.ExitCode)}
	}
	rec.ReviewVerdict = &v.Kind
	if v.Notes != "" {
		rec.ReviewNotes = &v.Notes
	}
}
