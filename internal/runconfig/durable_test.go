package runconfig

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/wfile"
)

// The kept settings and state are fsynced with their directory: a power
// cut soon after a run started lost the kept file's name, and the run was
// refused as planted at every resume after the reboot (or kept it empty,
// and nothing of it was enforced).
func TestKeepDurable(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir := filepath.Join(t.TempDir(), "runs", "r1")
	var synced []string
	defer wfile.SetFault(func(op wfile.Op, path string) error {
		if op == wfile.Sync {
			synced = append(synced, filepath.Base(path))
		}
		return nil
	})()
	s := Defaults()
	s.MaxIterations, s.Agent, s.DrivenMS = 2, []string{"sh"}, 1000
	if err := Keep(dir, &s); err != nil {
		t.Fatal(err)
	}
	kept, _ := keptPath(dir)
	state, _ := statePath(dir)
	want := []string{filepath.Base(kept) + ".tmp", "settings", filepath.Base(state) + ".tmp", "settings"}
	if strings.Join(synced, " ") != strings.Join(want, " ") {
		t.Errorf("fsynced %q, want %q", synced, want)
	}
}
