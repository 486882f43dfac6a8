package retention

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loopkit/loopkit/internal/artifacts"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
)

// A clean that deletes a run removes every copy of it: the mirror too,
// and the copies a pipeline's run was sent to by its recorder's
// environment, which its run.json does not name. Before, the mirror and
// a pipeline's copies stayed.
func TestCleanRemovesCopies(t *testing.T) {
	st := newStore(t)
	makeRun(t, st, "old", 30, record.RunCompleted)
	makeRun(t, st, "new", 0, record.RunCompleted)
	tmp := t.TempDir()
	logs, mirror, arts := filepath.Join(tmp, "logs"), filepath.Join(tmp, "mirror"), filepath.Join(tmp, "arts")
	for _, id := range []string{"old", "new"} {
		run, err := st.ReadRun(id)
		if err != nil {
			t.Fatal(err)
		}
		// as loop-record copies a pipeline's run: settings from its
		// environment, not kept in run.json
		c := *run
		c.Settings = runconfig.MustFromMap(map[string]string{artifacts.KeyLogDir: logs,
			artifacts.KeyArtifactMode: artifacts.Mirror, artifacts.KeyGlobalLogDir: mirror, artifacts.KeyArtifactDir: arts})
		if err := artifacts.Write(st, &c); err != nil {
			t.Fatal(err)
		}
	}
	_, got := clean(t, st, Options{Policy: Policy{KeepDays: 7}})
	if got["old"].Action != Delete || got["new"].Action == Delete {
		t.Fatalf("decisions %+v", got)
	}
	for _, d := range []string{filepath.Join(logs, "run-old"), filepath.Join(mirror, "run-old"), filepath.Join(arts, "runs", "old")} {
		if _, err := os.Lstat(d); !os.IsNotExist(err) {
			t.Errorf("%s still there (%v)", d, err)
		}
	}
	for _, d := range []string{filepath.Join(logs, "run-new", "summary.json"), filepath.Join(mirror, "run-new", "summary.json"), filepath.Join(arts, "runs", "new")} {
		if _, err := os.Lstat(d); err != nil {
			t.Errorf("the kept run's copy %s: %v", d, err)
		}
	}
}
