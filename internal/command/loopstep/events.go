package loopstep

import (
	"time"

	"github.com/loopkit/loopkit/internal/runstate"
)

// startStep appends the step's STEP_STARTED event to its run (when the run
// exists) just before the agent starts, so a reader sees the step begin
// long before its iteration is recorded; it returns the step's id for the
// record, whose commit appends STEP_FINISHED. A review first ends the step
// it reviews (its STEP_FINISHED). A store that cannot take the event is a
// warning: the agent's work matters more than its event.
func (s *stepRun) startStep() string {
	if s.opts.Run == "" || s.opts.NoStore || !s.st.RunExists(s.opts.Run) {
		return ""
	}
	rec := runstate.Plain(s.st, s.env.Log).Rec
	id, err := rec.StartStepAfter(s.opts.Run, s.opts.Phase, time.Now().UnixMilli(), s.reviewed)
	if err != nil {
		s.env.Log.Warn("the step's STEP_STARTED event was not written", "run", s.opts.Run, "err", err)
		return ""
	}
	return id
}
