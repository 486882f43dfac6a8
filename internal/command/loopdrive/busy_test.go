package loopdrive

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/testsupport/storetest"
)

// `loop resume` of a run whose driver still lives: for a paused run (the
// driver finishes its step) or a queued one (it waits for a slot) the
// hint offered `loop pause`, which refuses both ("nothing to pause").
func TestResumeBusyHintFitsStatus(t *testing.T) {
	for status, want := range map[string]string{
		record.RunRunning: "pause",
		record.RunPaused:  "still finishing its step",
		record.RunQueued:  "waits for a free slot",
	} {
		t.Run(status, func(t *testing.T) {
			st := storetest.Driven(t, status)
			storetest.RecordDriver(t, st, "r", sleeper(t).Process.Pid)
			var out bytes.Buffer
			h := &holder{env: cli.NewEnv("loop-drive", nil, strings.NewReader(""), &out, &out), st: st, parent: os.Getpid()}
			err := h.lockDriver("r")
			for _, l := range h.locks {
				l.Unlock()
			}
			var e *cli.ExitError
			if !errors.As(err, &e) || e.Code != exitcode.Busy {
				t.Fatalf("lockDriver = %v, want busy", err)
			}
			if got := e.Error() + "\n" + e.Hint; !strings.Contains(got, want) {
				t.Errorf("got %q, want %q in it", got, want)
			}
			if status != record.RunRunning && strings.Contains(e.Hint, " pause ") {
				t.Errorf("hint %q offers pause for a %s run", e.Hint, status)
			}
		})
	}
}
