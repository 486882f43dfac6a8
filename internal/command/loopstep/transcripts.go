package loopstep

import (
	"os"

	"github.com/loopkit/loopkit/internal/record"
)

// dropTranscript applies transcripts=drop (--transcripts, LOOP_TRANSCRIPTS,
// the config, or the run's own setting) once the step is parsed: the
// spooled streams are deleted and the record keeps no word of the agent's.
// A crash after this point leaves the parsed record, not the words.
func (s *stepRun) dropTranscript(rec *record.Step) {
	// LOOP_TRANSCRIPTS is read here, not by the flag parser: drop wins
	// from any source, and the help stays one line
	drop := s.opts.Transcripts == record.TranscriptsDrop || os.Getenv("LOOP_TRANSCRIPTS") == record.TranscriptsDrop
	if !drop && s.opts.Run != "" && s.st != nil {
		if run, err := s.readRun(); err == nil {
			drop = run.Settings.Transcripts == record.TranscriptsDrop
		}
	}
	if !drop {
		return
	}
	for _, p := range []*string{rec.StdoutFile, rec.StderrFile} {
		if p != nil && *p != "" {
			os.Remove(*p)
		}
	}
	rec.DropTranscript()
}
