package record

// Review is a reviewer's verdict on an iteration's step: the reviewer ran
// between the step and the validation, read the step's change, and its
// call is attempt Attempt of the run (kind reviewer).
type Review struct {
	Verdict string `json:"verdict"`         // approve, changes or none (no verdict understood)
	Notes   string `json:"notes,omitempty"` // the requested changes, or why there was no verdict
	Attempt int    `json:"attempt"`
	// CannotWork: the reviewer could not start (126/127) or said it may
	// not work (CannotWorkKinds), so no iteration can be approved.
	CannotWork bool `json:"cannot_work,omitempty"`
}

// ReviewNotesChars bounds the notes kept on the iteration.
const ReviewNotesChars = 8000
