package record

// Transcripts values: keep (the default) stores the agent's words; drop
// stores none of them (seed 004: "full LLM conversation logs: not stored").
const (
	TranscriptsKeep = "keep"
	TranscriptsDrop = "drop"
	// TranscriptsKey is the run setting (config key transcripts).
	TranscriptsKey = "transcripts"
)

// DropTranscript removes the agent's words from a step record: its streams
// (the caller removes the files), its final message (its size kept), the
// arguments and results of its tool calls (names and count kept), a
// reviewer's notes (the verdict kept), and an error text, which may quote
// the agent (its kind kept). Tokens, cost, exit code and times stay.
func (s *Step) DropTranscript() {
	if s == nil || s.TranscriptDropped {
		return
	}
	s.TranscriptDropped = true
	if s.FinalMessage != "" {
		n := int64(len(s.FinalMessage))
		s.FinalMessageBytes = &n
	}
	s.FinalMessage = ""
	s.StdoutFile, s.StderrFile = nil, nil
	for i := range s.ToolCalls {
		s.ToolCalls[i].ArgumentsSummary, s.ToolCalls[i].ResultSummary = "", ""
	}
	s.ReviewNotes = nil
	if s.Error != nil {
		msg := "the agent failed (its words are not kept: transcripts=drop)"
		if s.ErrorKind != nil {
			msg = "the agent failed: " + *s.ErrorKind + " (its words are not kept: transcripts=drop)"
		}
		s.Error = &msg
	}
	s.RateLimitEvidence = nil
}
