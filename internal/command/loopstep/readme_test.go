package loopstep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The README's one-step example for each agent runs as written, against a
// stand-in binary of the same name on PATH (testdata/agent-stubs) that
// prints that agent's format: the format is detected and the figures kept.
func TestReadmeAgentExamples(t *testing.T) {
	data, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(data), "<!-- agent examples:")
	if !ok {
		t.Fatal("README has no agent examples block")
	}
	block, _, _ = strings.Cut(block, "```\n\n")
	stubs, _ := filepath.Abs("../../../testdata/agent-stubs")
	t.Setenv("PATH", stubs+string(os.PathListSeparator)+os.Getenv("PATH"))
	want := map[string]string{"claude": "claude", "codex": "codex", "gemini": "gemini", "opencode": "opencode",
		"cursor-agent": "cursor", "amp": "amp", "copilot": "copilot"}
	seen := 0
	for _, ln := range strings.Split(block, "\n") {
		if !strings.HasPrefix(ln, "loop-step ") {
			continue
		}
		args := strings.Fields(strings.TrimPrefix(ln, "loop-step "))
		var agentName string
		for i, a := range args {
			if a == "--" {
				agentName = args[i+1]
			}
			if a == "TASK.md" {
				args[i] = "PROMPT"
			}
		}
		t.Run(agentName, func(t *testing.T) {
			c := newCase(t)
			for i, a := range args {
				if a == "PROMPT" {
					args[i] = c.dir + "/prompt.md"
				}
			}
			rec, code, stderr := c.run("", args...)
			if code != 0 || rec == nil {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if rec.Format != want[agentName] || rec.FinalMessage != "stub "+strings.TrimSuffix(agentName, "-agent")+" done" {
				t.Errorf("format %q final %q", rec.Format, rec.FinalMessage)
			}
			if rec.SessionID == nil || !strings.Contains(*rec.SessionID, "stub") {
				t.Errorf("session %v", str(rec.SessionID))
			}
		})
		seen++
	}
	if seen != len(want) {
		t.Errorf("%d examples, want one per agent (%d)", seen, len(want))
	}
}
