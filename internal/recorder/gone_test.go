package recorder

import (
	"os"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
)

// A driver's run removed during the run (git clean -x, rm -r .loop/runs)
// was made again by the driver's last writes: a run.json without its
// settings, read as one the agent changed ("settings were changed during
// the run"). A run whose settings are kept is never made again.
func TestGoneDriverRunNotMadeAgain(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	r := newRecorder(t)
	if _, err := r.Record("x", validation(t, 1, "out"), 0); err != nil {
		t.Fatal(err)
	}
	set := runconfig.MustFromMap(map[string]string{"agent": `["claude"]`})
	if err := runconfig.Keep(r.St.RunDir("x"), &set); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(r.St.RunDir("x")); err != nil {
		t.Fatal(err)
	}
	in, err := record.DecodeInput([]byte(`{"type":"step","command":"claude","exit_code":0}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.RecordAttempt("x", in, "interrupted")
	if err == nil || !strings.Contains(err.Error(), "is gone from the store") {
		t.Fatalf("attempt of a removed run: %v, want it refused", err)
	}
	if _, err := r.SetStatusRule("x", "failed", "gone", ""); err == nil {
		t.Fatal("status of a removed run: made again")
	}
	if r.St.RunExists("x") {
		t.Fatal("the removed run was made again")
	}
}
