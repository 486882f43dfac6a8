package loopkit_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/loopkit/loopkit/pkg/loopkit"
)

// A line without its newline, however long (the agent can append to the
// logs under .loop), is no commit and costs no memory: it used to be held
// whole, grown by doubling, on every read and every poll of Follow.
func TestTornTailCostsNoMemory(t *testing.T) {
	st, dir := fixture(t)
	run := filepath.Join(dir, "runs", "fix-parser")
	tail := bytes.Repeat([]byte("x"), 64<<20)
	for _, name := range []string{"iterations.jsonl", "events.jsonl"} {
		f, err := os.OpenFile(filepath.Join(run, name), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(tail); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	tail = nil
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	its, err := st.Iterations("fix-parser")
	if err != nil || len(its) != 2 {
		t.Fatalf("Iterations: %d, %v; want the 2 committed", len(its), err)
	}
	evs, err := st.Events("fix-parser")
	if err != nil || len(evs) != 4 {
		t.Fatalf("Events: %d, %v; want the 4 committed", len(evs), err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := st.Follow(ctx, "fix-parser", func(loopkit.IterationLog) error { return nil }); err != nil {
		t.Fatalf("Follow: %v", err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("reading past two 64 MiB torn lines allocated %d MiB", got>>20)
	}
}
