package store

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Lines after the last commit that are no commits (the agent can append
// "{}" to iterations.jsonl by the thousand, 3 bytes each) are passed over
// in one backward read. Each one cost a fresh read of a 256 KiB chunk
// before: PeekCommit (loop-step's run notes and review, loop-view describe)
// took about 45 µs a line, minutes for a few MB; LastCommit (the record)
// set each aside in a file of its own, with its fsyncs: 2,000 lines took
// 4 s and left 2,000 files. Counted, not timed: the bytes this process
// reads (rchar of /proc/self/io), about 60 KB here, were 5 GB.
func TestCommitFoundPastManyBadLinesAtOnce(t *testing.T) {
	const bad = 20000
	p := filepath.Join(t.TempDir(), "iterations.jsonl")
	head := `{"iteration":1}` + "\n" + `{"iteration":2}` + "\n"
	if err := os.WriteFile(p, []byte(head+strings.Repeat("{}\n", bad)), 0o600); err != nil {
		t.Fatal(err)
	}
	read0 := bytesRead(t)
	line, n, err := PeekCommit(p, "iteration")
	if err != nil || n != 2 || string(line) != `{"iteration":2}` {
		t.Fatalf("PeekCommit: %q %d %v", line, n, err)
	}
	if r := bytesRead(t) - read0; r > 16<<20 {
		t.Fatalf("PeekCommit read %d bytes of a %d-byte log past %d lines", r, len(head)+3*bad, bad)
	}
	line, n, aside, err := LastCommit(p, "iteration")
	if err != nil || n != 2 || string(line) != `{"iteration":2}` || aside != bad {
		t.Fatalf("LastCommit: %q %d aside %d, %v", line, n, aside, err)
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

// bytesRead is what this process has read so far (rchar), or skips the
// test where /proc/self/io is not there.
func bytesRead(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		t.Skip("no /proc/self/io here")
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "rchar: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Skip("no rchar in /proc/self/io")
	return 0
}
