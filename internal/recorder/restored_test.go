package recorder

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
)

// run.json's settings changed during the run (an agent's edit, a store
// restored from a backup) are said once: the writer that finds them writes
// them back at once, even one that never rewrites run.json itself (it
// finishes open steps), so the next writer does not warn and log again.
func TestSettingsRestoredOnce(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	r := newRecorder(t)
	if _, err := r.Record("x", validation(t, 1, "out"), 0); err != nil {
		t.Fatal(err)
	}
	set := runconfig.MustFromMap(map[string]string{"max_iterations": "3"})
	if err := runconfig.Keep(r.St.RunDir("x"), &set); err != nil {
		t.Fatal(err)
	}
	path := r.St.RunPath("x", store.RunFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var run map[string]any
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatal(err)
	}
	run["settings"] = map[string]any{"max_iterations": 9}
	if data, err = json.Marshal(run); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := r.FinishOpenSteps("x", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Update("x", func(*record.Run) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if n := count(t, r.St.RunPath("x", store.EventsFile), record.EventSettingsRestored); n != 1 {
		t.Fatalf("%d %s events, want 1", n, record.EventSettingsRestored)
	}
}
