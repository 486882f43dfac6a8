package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Lines after the last commit that are no commits (the agent can append
// "{}" to iterations.jsonl by the thousand, 3 bytes each) are passed over
// in one backward read. Each one cost a fresh read of a 256 KiB chunk
// before: PeekCommit (loop-step's run notes and review, loop-view describe)
// took about 45 µs a line, minutes for a few MB; LastCommit (the record)
// set each aside in a file of its own, with its fsyncs: 2,000 lines took
// 4 s and left 2,000 files.
func TestCommitFoundPastManyBadLinesAtOnce(t *testing.T) {
	const bad = 200000
	p := filepath.Join(t.TempDir(), "iterations.jsonl")
	head := `{"iteration":1}` + "\n" + `{"iteration":2}` + "\n"
	if err := os.WriteFile(p, []byte(head+strings.Repeat("{}\n", bad)), 0o600); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	line, n, err := PeekCommit(p, "iteration")
	if err != nil || n != 2 || string(line) != `{"iteration":2}` {
		t.Fatalf("PeekCommit: %q %d %v", line, n, err)
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Fatalf("PeekCommit took %v past %d lines", d, bad)
	}
	t0 = time.Now()
	line, n, aside, err := LastCommit(p, "iteration")
	if err != nil || n != 2 || string(line) != `{"iteration":2}` || aside != bad {
		t.Fatalf("LastCommit: %q %d aside %d, %v", line, n, aside, err)
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Fatalf("LastCommit took %v past %d lines", d, bad)
	}
	files, _ := filepath.Glob(p + ".bad-*")
	if len(files) != 1 {
		t.Fatalf("%d files set aside, want 1", len(files))
	}
	if data, _ := os.ReadFile(files[0]); string(data) != strings.Repeat("{}\n", bad) {
		t.Fatalf("set aside %d bytes, want the %d lines", len(data), bad)
	}
	if data, _ := os.ReadFile(p); string(data) != head {
		t.Fatalf("log left %q", data)
	}
}
