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
		what, back := "workspace", filepath.Dir(old)
		if filepath.Base(old) != ".loop" || !filepath.IsAbs(run.WorkspaceRoot) || filepath.Clean(back) != filepath.Clean(run.WorkspaceRoot) {
			what, back = "store", old // a store of its own (a .loop link, LOOP_STORE) moved
		}
		return &cli.ExitError{Code: exitcode.Usage, Err: fmt.Errorf("run %s was started in the store %s, not here "+
			"(%s: the %s was moved or copied since); loopkit keeps a run's settings by its store's path", id, old, st.Root, what),
			Hint: fmt.Sprintf("resume it there (move the %s back to %s), or start a new run", what, back)}
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
// or copied the workspace (the store in it), or the store, since: .loop
// in the workspace run.json names, or a store loopkit remembers (a word
// of run.json's, the agent's to write, picks a message here, nothing else).
func movedFrom(st *store.Store, id string, run *record.Run) string {
	var roots []string
	if filepath.IsAbs(run.WorkspaceRoot) {
		roots = append(roots, filepath.Join(run.WorkspaceRoot, ".loop"))
	}
	// a store of its own (.loop a link to another disk, LOOP_STORE) moved
	// and linked again: the stores the person ran loops in are remembered
	remembered, _ := userdir.Stores()
	for _, r := range append(roots, remembered...) {
		old := &store.Store{Root: r}
		if filepath.Clean(r) != filepath.Clean(st.Root) && runconfig.IsKept(old.RunDir(id)) {
			return r
		}
	}
	return ""
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
