package loopdrive

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/driverargs"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/userdir"
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
	// a loop started before an upgrade, still running: not a run to
	// start anew beside it
	if err := olderDriver(st, id); err != nil {
		return err
	}
	run, err := st.ReadRun(id)
	if err != nil {
		run = &record.Run{}
	}
	if old := movedFrom(st, id, run); old != "" {
		if sameDir(old, st.Root) {
			return &cli.ExitError{Code: exitcode.Usage, Err: fmt.Errorf("run %s was started in the store %s, which is this one (%s) "+
				"reached by another path (a bind mount); loopkit keeps a run's settings by its store's path", id, old, st.Root),
				Hint: fmt.Sprintf("resume it from %s", filepath.Dir(old))}
		}
		return &cli.ExitError{Code: exitcode.Usage, Err: fmt.Errorf("run %s was started in the store %s, not here "+
			"(%s: the workspace was moved or copied since); loopkit keeps a run's settings by its store's path", id, old, st.Root),
			Hint: fmt.Sprintf("resume it there (move the workspace back to %s), or start a new run", filepath.Dir(old))}
	}
	// where they were looked for: a run started with another
	// XDG_STATE_HOME or HOME (sudo, another login's profile) is the
	// person's own, resumed with that one, not to be cancelled
	where := ""
	if dir := userdir.StatePath(); dir != "" {
		where = fmt.Sprintf("; loopkit keeps them in %s: a run started with another XDG_STATE_HOME or HOME resumes with that one",
			filepath.Join(dir, "settings"))
	}
	return &cli.ExitError{Code: exitcode.Usage, Err: fmt.Errorf("run %s has no settings kept by loopkit, "+
		"as a run this version's driver started has (one an older loopkit started has none either%s): "+
		"not resumed, it would run agent %q, validation %q "+
		"(the agent can write .loop/runs); start a new run instead, and '%s cancel %s' ends this one "+
		"so that no resume --interrupted offers it again",
		id, where, strings.Join(run.Settings.Agent, " "), run.Settings.Validate, driverargs.Prog(), id)}
}

// movedFrom is the store a run was started in, when it is another than
// st and holds the settings loopkit kept for the run: the person moved
// or copied the workspace (the store in it) since. Only the default
// store, .loop in the workspace, can be found from run.json; a word of
// run.json's (the agent's to write) picks a message here, nothing else.
func movedFrom(st *store.Store, id string, run *record.Run) string {
	if run.WorkspaceRoot == "" || !filepath.IsAbs(run.WorkspaceRoot) {
		return ""
	}
	old := &store.Store{Root: filepath.Join(run.WorkspaceRoot, ".loop")}
	if filepath.Clean(old.Root) == filepath.Clean(st.Root) || !runconfig.IsKept(old.RunDir(id)) {
		return ""
	}
	return old.Root
}

// sameDir: a and b are one folder (a bind mount shows it at two paths).
func sameDir(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}
