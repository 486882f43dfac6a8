package record

// Review is a reviewer's verdict on an iteration's step: the reviewer ran
// between the step and the validation, read the step's change, and its
// call is attempt Attempt of the run (kind reviewer).
type Review struct {
	Verdict string `json:"verdict"`         // approve, changes or none (no verdict understood)
	Notes   string `json:"notes,omitempty"` // the requested changes, or why there was no verdict
	Attempt int    `json:"attempt"`
}

// ReviewNotesChars bounds the notes kept on the iteration.
const ReviewNotesChars = 8000
