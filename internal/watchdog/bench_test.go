package watchdog

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/loopkit/loopkit/internal/benchrun"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// longRun writes a run of n recorded-looking iterations (a failing go test,
// tool calls, a diff digest, its folder) straight to the store.
func longRun(b *testing.B, n int) (*store.Store, string) {
	b.Helper()
	r, _ := newRun(b, "Fix the tests.\n")
	var buf bytes.Buffer
	for i := 1; i <= n; i++ {
		out := goFail1
		if i%3 == 0 {
			out = goFailOther
		}
		it := record.IterationLog{ID: record.IterationID("r1", i), RunID: "r1", Iteration: i, Status: record.StatusFail, ExitCode: 1,
			Stdout: out + fmt.Sprintf("%0512d\n", i), FilesChanged: []string{"calc.go"}, DiffDigest: fmt.Sprintf("sha256:%064x", i),
			ToolCalls: []record.ToolCall{{ToolName: "Edit", ArgumentsSummary: `{"file_path":"calc.go"}`}, {ToolName: "Bash", ArgumentsSummary: "go test ./..."}},
			Agent:     &record.Agent{Command: "claude -p", FinalMessage: "I changed Add."}}
		line, _ := record.Marshal(it)
		buf.Write(append(line, '\n'))
		if err := os.MkdirAll(r.St.IterationDir("r1", i), 0o700); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(r.St.RunPath("r1", store.IterationsFile), buf.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	run, _ := r.St.ReadRun("r1")
	run.Iteration = n
	if err := r.St.WriteRun(run); err != nil {
		b.Fatal(err)
	}
	return r.St, "r1"
}

// BenchmarkSignals is the watchdog's read and evaluation after an
// iteration: the same cost for 5 and for 10,000 recorded iterations.
func BenchmarkSignals(b *testing.B) {
	for _, n := range []int{5, 10000} {
		st, id := longRun(b, n)
		b.Run(fmt.Sprintf("iterations=%d", n), func(b *testing.B) {
			defer benchrun.CPUPerOp(b)()
			for b.Loop() {
				win, err := Window(st, id, DefaultK, 0)
				if err != nil || len(win) != DefaultK+1 {
					b.Fatal(err, len(win))
				}
				Evaluate(win, DefaultK)
			}
		})
	}
}
