package loopstep

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/review"
	"github.com/loopkit/loopkit/internal/runnotes"
	"github.com/loopkit/loopkit/internal/store"
)

// changesPatch is the iteration folder's diff (loop-record writes it).
const changesPatch = "changes.patch"

// phasePrompt turns the task prompt into the phase's prompt: a review of
// iteration --review, or for an implementation step of a run, the task with
// the run's notes (a reviewer's requested changes, a failed final
// verification) after it.
func phasePrompt(env *cli.Env, st *store.Store, opts *Options, prompt string) (string, error) {
	if opts.Review > 0 {
		if opts.Run == "" || !st.RunExists(opts.Run) {
			return "", env.UsageError("--review needs the --run it reviews an iteration of")
		}
		path := filepath.Join(st.IterationDir(opts.Run, opts.Review), changesPatch)
		diff, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", cli.Failf("read the iteration's diff: %v", pathError(err))
		}
		if _, err := os.Stat(st.IterationDir(opts.Run, opts.Review)); err != nil {
			return "", cli.Failf("run %s has no iteration %d to review", opts.Run, opts.Review)
		}
		return review.Prompt(prompt, string(diff), path, opts.ReviewMarker, opts.Review), nil
	}
	if opts.Phase != "implementation" || opts.Run == "" || !st.RunExists(opts.Run) {
		return prompt, nil
	}
	notes, err := runnotes.Load(st, opts.Run)
	if err != nil {
		return "", cli.Failf("run notes: %v", err)
	}
	if notes == "" {
		return prompt, nil
	}
	return prompt + "\n\n" + notes, nil
}

// verdict fills a review step's verdict from the agent's final message.
func (s *stepRun) verdict(rec *record.Step) {
	if s.opts.Review == 0 {
		return // a review-phase step of something else (a stuck report)
	}
	v := review.Parse(rec.FinalMessage, s.opts.ReviewMarker)
	rec.ReviewVerdict = &v.Kind
	if v.Notes != "" {
		rec.ReviewNotes = &v.Notes
	}
}
