package loopstep

import (
	"os"

	"github.com/loopkit/loopkit/internal/record"
)

// dropTranscript applies transcripts=drop once the step is parsed: the
// spooled streams are deleted and the record keeps no word of the agent's.
// A crash after this point leaves the parsed record, not the words.
//
// --transcripts on the command line decides; else the run's own setting
// (the driver resolved it once: flag > LOOP_TRANSCRIPTS > config), so the
// setting means what run.json says whatever this step's environment;
// else (a run without it, a pipeline) LOOP_TRANSCRIPTS, then the config,
// which settings.Open resolved into opts.Transcripts.
func (s *stepRun) dropTranscript(rec *record.Step) {
	mode := s.opts.Transcripts
	if !s.transcriptsFlag && s.opts.Run != "" && s.st != nil {
		if run, err := s.readRun(); err == nil && run.Settings.Transcripts != "" {
			mode = run.Settings.Transcripts
		}
	}
	drop := mode == record.TranscriptsDrop
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
