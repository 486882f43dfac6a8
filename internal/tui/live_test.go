package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// TestLiveRateLimitWait: while the driver waits out a rate limit (the
// run's last event is RATE_LIMITED and its wait is not over), the live
// step says so, with the time left; once it is over, it does not.
func TestLiveRateLimitWait(t *testing.T) {
	st := &store.Store{Root: filepath.Join(t.TempDir(), ".loop")}
	run := store.NewRun("r1", "r1", 1)
	run.Status = record.RunRunning
	if err := st.CreateRun(run); err != nil {
		t.Fatal(err)
	}
	now := time.UnixMilli(1_800_000_000_000)
	wait := int64(90_000)
	line, _ := record.Marshal(record.Event{TS: now.UnixMilli() - 30_000, RunID: "r1", Type: record.EventRateLimited,
		WaitMs: &wait, Message: "the agent hit a usage or rate limit: 429"})
	if err := os.WriteFile(st.RunPath("r1", store.EventsFile), append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := New(st, "r1", false, Tools{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.live.stop()
	m.now = func() time.Time { return now }
	screen := strings.Join(m.liveBody(20), "\n")
	if !strings.Contains(screen, "rate limited, next try in 1m00s: the agent hit a usage or rate limit: 429") {
		t.Fatalf("no wait on the live step:\n%s", screen)
	}
	m.now = func() time.Time { return now.Add(time.Minute) }
	if screen := strings.Join(m.liveBody(20), "\n"); strings.Contains(screen, "rate limited") {
		t.Fatalf("a wait that is over still shown:\n%s", screen)
	}
}
