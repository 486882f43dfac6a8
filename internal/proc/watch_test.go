package proc

import (
	"testing"
	"time"
)

// The guards count the watch's own elapsed time (monotonic), never the
// wall clock: on main they compared Unix times, so an NTP step of an hour
// forward killed a working agent as idle. Here the elapsed clock is moved
// by hand; the wall clock would not move it at all.
func TestGuardsCountElapsedTime(t *testing.T) {
	var el time.Duration
	w := newWatch(func(line []byte) (bool, bool) { return true, string(line) == "result" })
	w.elapsed = func() time.Duration { return el }
	w.lastProgress.Store(0)
	el = 14 * time.Minute
	if g := w.guard(15*time.Minute, 0); g != "" {
		t.Fatalf("14 min after the start: %q", g)
	}
	w.line([]byte("working"))
	el += 14 * time.Minute
	if g := w.guard(15*time.Minute, 0); g != "" {
		t.Fatalf("14 min after progress: %q", g)
	}
	el += time.Minute
	if g := w.guard(15*time.Minute, 0); g != killIdle {
		t.Fatalf("15 min after progress: %q, want %q", g, killIdle)
	}
	w.line([]byte("result"))
	el += 29 * time.Second
	if g := w.guard(0, 30*time.Second); g != "" {
		t.Fatalf("29 s after the result: %q", g)
	}
	el += time.Second
	if g := w.guard(0, 30*time.Second); g != killAfterResult {
		t.Fatalf("30 s after the result: %q, want %q", g, killAfterResult)
	}
	w.line([]byte("more work"))
	el += time.Hour
	if g := w.guard(0, 30*time.Second); g != "" {
		t.Fatalf("work after the result: %q", g)
	}
}
