package deadstep

import (
	"fmt"

	"github.com/loopkit/loopkit/internal/lazylog"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runstate"
	"github.com/loopkit/loopkit/internal/store"
)

// Keep records a dead step's spool entry (at base, described by m) as an
// interrupted attempt of run id, and reports whether the entry may now go:
// recorded, or nothing in it to keep. Recording the same entry twice is a
// no-op (the attempt's digest), and a step that is already an iteration is
// not recorded again.
func Keep(st *store.Store, l lazylog.Logger, id, base string, m store.SpoolMeta) bool {
	step, err := Rebuild(base, m, l.Warn)
	if err != nil {
		l.Warn(fmt.Sprintf("run %s: the output of a step left unrecorded was not read: %v", id, err))
		return false
	}
	if step == nil {
		return true // the agent printed nothing
	}
	line, err := record.Marshal(step)
	if err != nil {
		l.Warn(fmt.Sprintf("run %s: the output of a step left unrecorded was not recorded: %v", id, err))
		return false
	}
	// the line is the attempt's digest: the same entry is never recorded twice
	in := &record.Input{Step: step, Lines: [][]byte{line}}
	r := runstate.Plain(st, l).Rec
	res, err := r.RecordAttempt(id, in, record.AttemptInterrupted)
	if err != nil {
		l.Warn(fmt.Sprintf("run %s: the output of a step left unrecorded was not recorded: %v", id, err))
		return false
	}
	if res.InIteration > 0 {
		l.Info(fmt.Sprintf("run %s: a step left unrecorded is already iteration %d's", id, res.InIteration))
		return true
	}
	l.Info(fmt.Sprintf("run %s: a step left unrecorded (its driver killed, or its record cut short by a full disk) is attempt %d, its output kept", id, res.Attempt.Attempt))
	return true
}
