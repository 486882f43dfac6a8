package tui

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// TestMemoryFollowsScreen opens a 10,000-iteration run (a 30 MB log) and
// draws its first and last screens: what the view holds must stay far
// below the log's size, since only the records on screen are read.
func TestMemoryFollowsScreen(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 30 MB log")
	}
	st := &store.Store{Root: filepath.Join(t.TempDir(), ".loop")}
	run := store.NewRun("big", "big", 1)
	run.Status = record.RunRunning
	if err := st.CreateRun(run); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(st.RunPath("big", store.IterationsFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	out := strings.Repeat("--- FAIL: TestX (0.00s)\n    x_test.go:9: got 1, want 2\n", 50)
	size := 0
	for i := 1; i <= 10000; i++ {
		line, _ := record.Marshal(record.IterationLog{ID: record.IterationID("big", i), RunID: "big", Iteration: i,
			Status: record.StatusFail, ExitCode: 1, ValidationCommand: "go test ./...", Stdout: out, FilesChanged: []string{}})
		size += len(line) + 1
		w.Write(append(line, '\n'))
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, err := New(st, "big", false, Tools{})
	if err != nil {
		t.Fatal(err)
	}
	m.key("L") // a running run opens on its live step
	last := m.view()
	m.key("g")
	first := m.view()
	m.key("enter")
	m.view()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(m)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("log %d bytes; the view holds %d bytes after drawing", size, held)
	if !strings.Contains(last, "> [10000]") || !strings.Contains(first, "> [1]") {
		t.Fatalf("screens:\n%s\n---\n%s", last, first)
	}
	if held > int64(size)/10 {
		t.Errorf("the view holds %d bytes for a %d-byte log: more than a tenth", held, size)
	}
}
