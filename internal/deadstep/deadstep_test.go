package deadstep

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loopkit/loopkit/internal/store"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRebuildClaude(t *testing.T) {
	base := filepath.Join(t.TempDir(), "1795396712648-4242-0a1b2c3d.step")
	write(t, base+".stdout", `{"type":"system","subtype":"init","session_id":"s-1","tools":[],"model":"m"}
{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go test"}}],"usage":{"input_tokens":1234,"output_tokens":56}}}
`)
	write(t, base+".stderr", "warming up\n")
	write(t, base+".prompt", "fix it\n")
	meta := store.SpoolMeta{PID: 4242, Command: "claude -p", StartedAt: 1795396712000, Phase: "review", Program: "claude", Format: "auto"}
	s, err := Rebuild(base, meta, nil)
	if err != nil || s == nil {
		t.Fatalf("Rebuild: %v, %v", s, err)
	}
	switch {
	case s.Format != "claude" || s.Phase != "review" || s.Command != "claude -p":
		t.Errorf("format %q phase %q command %q", s.Format, s.Phase, s.Command)
	case s.LLMInputTokens == nil || *s.LLMInputTokens != 1234 || s.LLMOutputTokens == nil || *s.LLMOutputTokens != 56:
		t.Errorf("tokens %v %v", s.LLMInputTokens, s.LLMOutputTokens)
	case s.CostUSD != nil || *s.CostSource != "unknown":
		t.Errorf("no result line, yet cost %v (%s)", s.CostUSD, *s.CostSource)
	case len(s.ToolCalls) != 1 || s.SessionID == nil || *s.SessionID != "s-1":
		t.Errorf("tool calls %v session %v", s.ToolCalls, s.SessionID)
	case s.PromptFile == nil || *s.PromptFile != base+".prompt" || s.StdoutBytes == 0 || s.StderrBytes != 11:
		t.Errorf("files %v, %d/%d bytes", s.PromptFile, s.StdoutBytes, s.StderrBytes)
	case s.ExitCode != nil || s.Error == nil || s.StartedAt != meta.StartedAt || s.EndedAt < s.StartedAt:
		t.Errorf("exit %v error %v times %d..%d", s.ExitCode, s.Error, s.StartedAt, s.EndedAt)
	}
}

// The program's name decides the format, as in loop-step; the usage file
// an agent wrote beats what it printed.
func TestRebuildCodexAndUsageFile(t *testing.T) {
	base := filepath.Join(t.TempDir(), "1795396712648-7-ff.step")
	write(t, base+".stdout", `{"type":"thread.started","thread_id":"t-1"}
{"type":"turn.completed","usage":{"input_tokens":600,"cached_input_tokens":100,"output_tokens":100}}
`)
	write(t, base+".usage.json", `{"cost_usd":0.25}`)
	s, err := Rebuild(base, store.SpoolMeta{PID: 7, Program: "codex"}, nil)
	if err != nil || s == nil {
		t.Fatalf("Rebuild: %v, %v", s, err)
	}
	if s.Format != "codex" || s.LLMInputTokens == nil || *s.LLMInputTokens != 500 || s.CostUSD == nil || *s.CostUSD != 0.25 || *s.CostSource != "reported" {
		t.Errorf("format %q input %v cost %v", s.Format, s.LLMInputTokens, s.CostUSD)
	}
	if s.Phase != "implementation" || s.StderrFile != nil {
		t.Errorf("phase %q stderr %v", s.Phase, s.StderrFile)
	}
}

func TestRebuildNothingPrinted(t *testing.T) {
	base := filepath.Join(t.TempDir(), "1795396712648-7-ff.step")
	write(t, base+".stdout", "")
	s, err := Rebuild(base, store.SpoolMeta{PID: 7}, nil)
	if err != nil || s != nil {
		t.Errorf("an empty entry gave %v, %v", s, err)
	}
}
