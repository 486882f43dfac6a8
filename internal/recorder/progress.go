package recorder

import (
	"github.com/loopkit/loopkit/internal/progress"
	"github.com/loopkit/loopkit/internal/record"
)

// DefaultProgress is how run.json's progress is rendered when the
// recorder is given no limits: loop-progress's defaults.
var DefaultProgress = progress.Limits{MaxEntries: 5, MaxChars: 500, Excerpt: progress.ExcerptTail}

// saveProgress sets run.json's progress to the block the next prompt
// carries (seed 002's persisted progress), from the log's last entries,
// the just-committed iteration included. It is derived: a failure to
// read leaves the block as it was, and the next iteration renders it again.
func (r *Recorder) saveProgress(run *record.Run) {
	l := DefaultProgress
	if r.Progress != nil {
		l = *r.Progress
	}
	logs, err := progress.Load(r.St, run.RunID, l.MaxEntries)
	if err != nil {
		r.Log.Warn("run.json's progress block not updated", "run", run.RunID, "err", err)
		return
	}
	run.Progress = progress.Render(logs, l)
}
