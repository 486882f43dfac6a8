package loopdrive

import (
	"fmt"
	"strings"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/driverargs"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
)

// notPlanted refuses to resume a run whose settings loopkit did not keep
// outside the workspace when a driver of the user's started it: the agent
// can write .loop/runs, and a run it planted there, "running" with no
// driver, would have its agent, validation and hooks run by `loop resume`
// (at login, by --interrupted) outside any sandbox.
func notPlanted(st *store.Store, id string) error {
	if runconfig.IsKept(st.RunDir(id)) {
		return nil
	}
	run, err := st.ReadRun(id)
	if err != nil {
		run = &record.Run{}
	}
	return &cli.ExitError{Code: exitcode.Usage, Err: fmt.Errorf("run %s has no settings kept by loopkit, "+
		"as a run this version's driver started has (one an older loopkit started has none either): "+
		"not resumed, it would run agent %q, validation %q "+
		"(the agent can write .loop/runs); start a new run instead, and '%s cancel %s' ends this one "+
		"so that no resume --interrupted offers it again",
		id, strings.Join(run.Settings.Agent, " "), run.Settings.Validate, driverargs.Prog(), id)}
}
