package loopdrive

import (
	"errors"
	"fmt"
	"os"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/driverargs"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/progress"
	"github.com/loopkit/loopkit/internal/runstate"
	"github.com/loopkit/loopkit/internal/store"
)

// started marks the run running once this driver holds it (its locks and
// slot) and appends RUN_STARTED with the driver's worker id: each time a
// driver takes the run, new, resumed or out of the queue.
func (h *holder) started(id string) error {
	worker := WorkerID(h.parent)
	if _, err := h.door.Start(id, worker); err != nil {
		return cli.Failf("%w", err)
	}
	return nil
}

// pausedOr ends the driver of a run paused while it waited for a slot as
// a pause does (exit 75, the run left paused for a resume, no step run);
// any other error goes to fail, which marks the run failed.
func (h *holder) pausedOr(id string, err error, fail func(error) error) error {
	if !errors.Is(err, runstate.ErrPausedWaiting) {
		return fail(err)
	}
	h.emit("out", "paused\n")
	return h.fail(cli.WithCode(exitcode.Busy, fmt.Errorf("run %[1]s was paused while it waited for a slot: no step ran; '%[2]s resume %[1]s' goes on", id, driverargs.Prog())))
}

// WorkerID names a driver: LOOP_WORKER_ID (a fleet worker's id) when set,
// else <host>:<pid> of the driver.
func WorkerID(pid int) string {
	if w := os.Getenv("LOOP_WORKER_ID"); w != "" {
		return w
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	return fmt.Sprintf("%s:%d", host, pid)
}

// promptProgress is the progress block the driver's prompts carry
// (loop-step --append-progress --excerpt failures --agent-summary, with
// the config's limits, read as loop-step reads them): run.json keeps the
// same block.
func promptProgress(st *store.Store) *progress.Limits {
	l := progress.Limits{MaxEntries: 5, MaxChars: 500, Excerpt: progress.ExcerptFailures, AgentSummary: true}
	cfg, err := cli.LoadConfig(st.ConfigFile(), os.Getenv("LOOP_CONFIG"))
	if err != nil {
		return &l // loop-step has said what is wrong with the file
	}
	t, err := cfg.Tools()
	if err != nil {
		return &l // checked when the run started; loop-step says it again
	}
	if cfg.Has("progress_max_entries") {
		l.MaxEntries = t.ProgressMaxEntries
	}
	if cfg.Has("progress_max_chars") {
		l.MaxChars = t.ProgressMaxChars
	}
	return &l
}
