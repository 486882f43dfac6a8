package loopclean

import (
	"errors"
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runstate"
	"github.com/loopkit/loopkit/internal/store"
)

// errAlreadyResolved aborts the update: a second --resolve changes nothing.
var errAlreadyResolved = errors.New("already resolved")

// resolve sets the run's resolved_at and appends RUN_RESOLVED under the
// append lock, then prints run.json. It never creates a run.
func resolve(env *cli.Env, st *store.Store, id string) error {
	if err := st.FindRun(id); err != nil {
		return cli.Failf("%w", err)
	}
	r := runstate.Plain(st, env.Log).Rec
	run, err := r.Update(id, func(run *record.Run) error {
		if run.ResolvedAt != nil {
			return errAlreadyResolved
		}
		if run.Status != record.RunStuck {
			env.Log.Warn("run is not stuck; marking it resolved anyway", "run", id, "status", run.Status)
		}
		now := time.Now().UnixMilli()
		run.ResolvedAt = &now
		return r.AppendEvent(record.Event{TS: now, RunID: id, Type: record.EventRunResolved})
	})
	switch {
	case errors.Is(err, errAlreadyResolved):
		env.Log.Info("run already resolved; nothing to do", "run", id)
		if run, err = st.ReadRun(id); err != nil {
			return cli.Failf("resolve %s: %w", id, err)
		}
	case err != nil:
		return cli.Failf("resolve %s: %w", id, err)
	default:
		env.Log.Info("run resolved; the retention policy now applies to it", "run", id)
	}
	line, err := record.Marshal(run)
	if err != nil {
		return err
	}
	_, err = env.Stdout.Write(append(line, '\n'))
	return err
}
