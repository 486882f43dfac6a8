package loopexport_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/record"
)

// bigRun writes a run of n iterations, each with an agent step of two tool
// calls, straight into a store (the export reads it as loop-record left it).
func bigRun(b testing.TB, root string, n int) {
	dir := filepath.Join(root, "runs", "big")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	created := time.Now().Add(-time.Hour).UnixMilli()
	meta, _ := json.Marshal(record.Run{SchemaVersion: 1, RunID: "big", Status: record.RunFailed, Iteration: n,
		ValidationCommand: "go test ./...", CreatedAt: created, UpdatedAt: created + int64(n)*300})
	if err := os.WriteFile(filepath.Join(dir, "run.json"), meta, 0o600); err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "iterations.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	in, out, cr, cc := int64(1200), int64(300), int64(9000), int64(500)
	cost := 0.02
	for i := 1; i <= n; i++ {
		t := created + int64(i)*300
		it := record.IterationLog{ID: record.IterationID("big", i), RunID: "big", Iteration: i, Status: record.StatusFail,
			ValidationCommand: "go test ./...", ExitCode: 1, Stdout: "--- FAIL: TestX\n", DurationMs: 100,
			FilesChanged: []string{"a.go"}, Failures: []record.Failure{{Test: "TestX", Message: "got 1"}},
			LLMInputTokens: &in, LLMOutputTokens: &out, LLMCacheReadTokens: &cr, LLMCacheCreationTokens: &cc, CostUSD: &cost,
			ToolCalls: []record.ToolCall{{ToolName: "Edit", ArgumentsSummary: `{"file_path":"a.go"}`, ResultSummary: "ok"},
				{ToolName: "Bash", ArgumentsSummary: `{"command":"go test ./..."}`, ResultSummary: "FAIL", IsError: true}},
			Agent:     &record.Agent{Command: "claude -p", Phase: "implementation", ExitCode: ptr(0), DurationMs: 150, Format: "claude", StartedAt: t - 250, EndedAt: t - 100},
			CreatedAt: t, UpdatedAt: t, RunCreatedAt: created, ValidationStartedAt: t - 100, ValidationEndedAt: t}
		line, _ := json.Marshal(it)
		f.Write(append(line, '\n'))
	}
	f.Close()
}

// BenchmarkExport10k sends a 10,000-iteration run to a local OTLP/HTTP
// receiver through the real command and reports iterations per second and
// the command's peak RSS.
func BenchmarkExport10k(b *testing.B) {
	b.Run("decoding-receiver", func(b *testing.B) { benchExport(b, false) })
	b.Run("draining-receiver", func(b *testing.B) { benchExport(b, true) })
}

func benchExport(b *testing.B, drain bool) {
	const n = 10000
	root := filepath.Join(b.TempDir(), ".loop")
	bigRun(b, root, n)
	rcv := newReceiver(b, 0)
	rcv.discard, rcv.drain = true, drain
	var rss int64
	var elapsed time.Duration
	for b.Loop() {
		cmd := exec.Command(os.Args[0], "big", "--endpoint", rcv.url())
		cmd.Env = append(os.Environ(), "LOOPKIT_TEST_EXEC=loop-export", "LOOP_STORE="+root)
		cmd.Stderr = os.Stderr
		os.RemoveAll(filepath.Join(root, "export")) // no checkpoint: send it all each time
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		elapsed += time.Since(start)
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = max(rss, int64(ru.Maxrss)*1024)
		}
		if got := rcv.count(); !drain && got != n {
			b.Fatalf("receiver got %d iteration spans, want %d", got, n)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/elapsed.Seconds(), "iterations/s")
	b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
}
