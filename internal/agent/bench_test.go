package agent

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkClaudeStream parses a stream-json transcript made by repeating
// the real sample (hooks, init, stream events, a tool call, the result).
func BenchmarkClaudeStream(b *testing.B) {
	sample, err := os.ReadFile(filepath.Join(samplesDir, "claude-stream-json-bash.ndjson"))
	if err != nil {
		b.Fatal(err)
	}
	data := bytes.Repeat(sample, (16<<20)/len(sample)+1)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := Parse(bytes.NewReader(data), FormatAuto, nil)
		if err != nil || res.Format != FormatClaude {
			b.Fatal(err, res.Format)
		}
	}
}

func BenchmarkCodex(b *testing.B) {
	sample, err := os.ReadFile(filepath.Join(samplesDir, "codex-exec-json-command.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	data := bytes.Repeat(sample, (16<<20)/len(sample)+1)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(bytes.NewReader(data), FormatAuto, nil); err != nil {
			b.Fatal(err)
		}
	}
}
