package loopdrive

import (
	"path/filepath"
	"strings"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/userdir"
)

// checkPlaces refuses, before anything is made, a new or resumed run whose
// workspace and loopkit's own folders overlap: a workspace in the store (a loop run
// from inside .loop validated there and "completed"), or the state or
// runtime directory in the workspace (HOME=/app in a container, a dotfiles
// repository at $HOME), where the agent can rewrite what loopkit trusts
// and every iteration recorded loopkit's files as the agent's changes.
func checkPlaces(st *store.Store, dir string) error {
	ws := resolved(dir)
	if top := store.GitTop(ws); top != "" {
		ws = top
	}
	if within(resolved(dir), resolved(st.Root)) {
		return cli.Usagef("the workspace %s is inside the store %s: run from the project's folder, or give --dir", dir, st.Root)
	}
	for _, p := range []struct{ path, env string }{
		{userdir.StatePath(), "XDG_STATE_HOME"},
		{userdir.RuntimePath(), "XDG_RUNTIME_DIR"},
	} {
		if p.path != "" && within(resolved(p.path), ws) {
			what := map[string]string{"XDG_STATE_HOME": "state", "XDG_RUNTIME_DIR": "runtime"}[p.env]
			return cli.Usagef("loopkit's %s directory %s is inside the workspace %s, where the agent writes: set %s to a folder of yours outside it", what, p.path, ws, p.env)
		}
	}
	return nil
}

// placesDir is the workspace checkPlaces checks: a new run's, or the one a
// resumed run keeps ("" when the run cannot be read: resume says why).
// A resume is checked too: XDG_RUNTIME_DIR, or HOME, may differ from the
// run's start (cron, another login, a container).
func placesDir(st *store.Store, opts *holdOptions) string {
	if opts.New {
		return opts.Settings.Dir
	}
	if r, err := st.ReadRun(opts.Run); err == nil {
		return r.Settings.Dir
	}
	return ""
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// resolved is path with the links of its longest existing part resolved: the
// folders compared may not exist yet.
func resolved(path string) string {
	r, _ := store.ResolvePrefix(path)
	return r
}
