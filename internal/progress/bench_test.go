package progress

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// benchRun writes a run of n iterations with 25 KB of output each (10,000
// of them make a 250 MB iterations.jsonl) straight to the log, since
// appending through the store would fsync every line.
func benchRun(b *testing.B, st *store.Store, id string, n int) int64 {
	b.Helper()
	if err := st.CreateRun(store.NewRun(id, id, 1)); err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(st.RunPath(id, store.IterationsFile))
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	out := strings.Repeat("--- FAIL: TestSomething (0.01s)\n    thing_test.go:42: got 1, want 2\n", 25<<10/64)
	for i := 1; i <= n; i++ {
		line, _ := record.Marshal(record.IterationLog{
			ID: record.IterationID(id, i), RunID: id, Iteration: i, Status: record.StatusFail,
			ValidationCommand: "go test ./...", ExitCode: 1, Stdout: out, DurationMs: int64(i),
			FilesChanged: []string{"a.go", "b.go"}, ToolCalls: []record.ToolCall{},
		})
		w.Write(line)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	fi, _ := f.Stat()
	f.Close()
	return fi.Size()
}

// BenchmarkLoadRender renders the default block (last 5 iterations) of
// runs of growing history: the cost must not grow with the log.
func BenchmarkLoadRender(b *testing.B) {
	st := &store.Store{Root: filepath.Join(b.TempDir(), ".loop")}
	for _, n := range []int{5, 10, 100, 1000, 10000} {
		id := fmt.Sprintf("r%d", n)
		size := benchRun(b, st, id, n)
		b.Run(fmt.Sprintf("iterations=%d", n), func(b *testing.B) {
			for b.Loop() {
				logs, err := Load(st, id, 5)
				if err != nil || len(logs) != min(n, 5) {
					b.Fatal(len(logs), err)
				}
				if Render(logs, DefaultLimits()) == "" {
					b.Fatal("empty block")
				}
			}
			b.ReportMetric(float64(size)/(1<<20), "log-MiB")
		})
	}
}

// BenchmarkReadRecords is the --from - path: it must read the whole
// stream, so it grows with it, but holds only the last 5 records.
func BenchmarkReadRecords(b *testing.B) {
	var buf bytes.Buffer
	out := strings.Repeat("x", 25<<10)
	for i := 1; i <= 1000; i++ {
		line, _ := record.Marshal(record.IterationLog{Iteration: i, ValidationCommand: "t", Stdout: out})
		buf.Write(append(line, '\n'))
	}
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		if logs, err := ReadRecords(bytes.NewReader(buf.Bytes()), 5); err != nil || len(logs) != 5 {
			b.Fatal(err)
		}
	}
}
