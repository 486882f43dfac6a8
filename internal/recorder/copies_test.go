package recorder

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
)

// The copies outside the store are derived: a recording writes them, and a
// repair writes a lost one again from the store.
func TestCopiesRebuiltByRepair(t *testing.T) {
	r := newRecorder(t)
	logs := filepath.Join(t.TempDir(), "logs")
	r.CopyDefaults = map[string]string{"log_dir": logs}
	if _, err := r.Record("x", validation(t, 1, "out"), 0); err != nil {
		t.Fatal(err)
	}
	summary := filepath.Join(logs, "run-x", "summary.json")
	if _, err := os.Stat(summary); err != nil {
		t.Fatalf("not copied as the iteration was recorded: %v", err)
	}
	os.RemoveAll(filepath.Join(logs, "run-x"))
	if err := r.Repair("x"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(summary); err != nil {
		t.Fatalf("not rebuilt by the repair: %v", err)
	}
	// a driver's run says where its copies go: it is not sent elsewhere
	if _, err := r.Update("x", func(run *record.Run) error {
		run.Settings = runconfig.MustFromMap(map[string]string{"artifact_mode": "workspace", "agent": `["claude"]`})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(logs, "run-x"))
	if err := r.Repair("x"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(summary); err == nil {
		t.Fatal("copied to the defaults of a run with settings of its own")
	}
}
