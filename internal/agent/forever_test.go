package agent

import (
	"os"
	"path/filepath"
	"testing"
)

// Codex 0.169.0 under a model that asks for a command in every turn (the
// agent matrix's tools_forever): each call is an item.started, then an
// item.completed with the same id. Past --max-tool-calls a call must be
// counted once: the real run's 1403 calls were recorded as 1000 kept and
// 806 dropped.
func TestDroppedCallsCountedOnce(t *testing.T) {
	f, err := os.Open(filepath.Join(transcriptsDir, "codex-0.169.0-tools-forever.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := ParseOptions(f, Options{MaxToolCalls: 2, Warn: testWarner(t)})
	if err != nil {
		t.Fatal(err)
	}
	// 6 calls in the transcript (its .expect.json, from jq): 2 kept, 4 dropped
	if len(res.ToolCalls) != 2 || res.ToolCallsDropped != 4 {
		t.Errorf("kept %d, dropped %d; want 2 kept and 4 dropped of the 6 calls", len(res.ToolCalls), res.ToolCallsDropped)
	}
}

// Gemini CLI 0.61.0 stops a model that repeats the same tool call: an
// error event of severity warning, "Loop detected, stopping execution",
// then a result with status success. Why the turn ended was dropped; it
// is a notice now (logged by loop-step), never the step's error.
func TestGeminiLoopDetectedNotice(t *testing.T) {
	res := parsePath(t, filepath.Join(transcriptsDir, "gemini-0.61.0-tools-forever.jsonl"), FormatAuto)
	if len(res.Notices) != 1 || res.Notices[0] != "gemini: Loop detected, stopping execution" {
		t.Errorf("notices %q, want Gemini's loop warning", res.Notices)
	}
	if len(res.Errors) != 0 || res.ErrorKind != "" {
		t.Errorf("errors %q (%s): a warning is not the step's error", res.Errors, res.ErrorKind)
	}
}
