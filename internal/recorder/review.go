package recorder

import (
	"github.com/loopkit/loopkit/internal/record"
)

// reviewAttempt commits the review on in (a reviewer's step between the
// iteration's step and its validation) as an attempt of kind reviewer of
// iteration n, before the iteration itself: a writer killed between the
// two leaves the reviewer's cost counted, and the same input again finds
// the attempt instead of adding it twice. It returns the verdict the
// iteration keeps; nil without a review.
func (r *Recorder) reviewAttempt(st *repaired, n int, in *record.Input) (*record.Review, error) {
	s := in.Review
	if s == nil {
		return nil, nil
	}
	digest := Digest(&record.Input{Lines: [][]byte{in.ReviewRaw}})
	res, err := r.appendAttempt(st, s, digest, record.AttemptReviewer, n, false)
	if err != nil {
		return nil, err
	}
	v := &record.Review{Verdict: *s.ReviewVerdict, Attempt: res.Attempt.Attempt, CannotWork: s.CannotWork}
	if s.ReviewNotes != nil {
		v.Notes = record.HeadChars(*s.ReviewNotes, record.ReviewNotesChars)
	}
	return v, nil
}
