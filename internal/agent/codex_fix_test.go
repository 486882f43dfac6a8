package agent

import (
	"encoding/json"
	"testing"
)

// Newer Codex CLIs: cache writes, reasoning, subagent calls, message phases,
// MCP servers with dashes.
func TestCodexNewerFields(t *testing.T) {
	res := parseString(t, lines(
		`{"type":"thread.started","thread_id":"th-2"}`,
		`{"type":"item.completed","item":{"id":"i1","type":"collab_tool_call","tool":"spawn_agent","prompt":"review the diff","receiver_thread_ids":["th-3"],"status":"completed"}}`,
		`{"type":"item.completed","item":{"id":"i2","type":"mcp_tool_call","server":"my-docs","tool":"search","arguments":{"q":"x"},"result":{"content":[]},"status":"completed"}}`,
		`{"type":"item.completed","item":{"id":"i3","type":"agent_message","text":"the answer","phase":"final_answer"}}`,
		`{"type":"item.completed","item":{"id":"i4","type":"agent_message","text":"cleaning up","phase":"commentary"}}`,
		`{"type":"turn.completed","usage":{"input_tokens":1000,"cached_input_tokens":600,"cache_write_input_tokens":100,"output_tokens":50,"reasoning_output_tokens":20}}`,
	), FormatAuto)
	wantUsage(t, res.Usage, 300, 50, 600, 100)
	if res.FinalMessage != "the answer" {
		t.Errorf("final %q", res.FinalMessage)
	}
	got, _ := json.Marshal(res.ToolCalls)
	want := `[{"tool_name":"collab_tool_call:spawn_agent","arguments_summary":"review the diff","result_summary":"completed","is_error":false},` +
		`{"tool_name":"mcp__my_docs__search","arguments_summary":"{\"q\":\"x\"}","result_summary":"","is_error":false}]`
	if string(got) != want {
		t.Errorf("tool calls\n got %s\nwant %s", got, want)
	}
}

// A warning Codex prints as an error item is a notice: a completed turn has
// no error, and a failed one is named by its turn.failed, not the warning.
func TestCodexNoticeIsNoError(t *testing.T) {
	notice := `{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Model metadata for ` + "`gpt-fake`" + ` not found. Defaulting to fallback metadata; this can degrade performance and cause issues."}}`
	res := parseString(t, lines(
		`{"type":"thread.started","thread_id":"th-1"}`, `{"type":"turn.started"}`, notice,
		`{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"done"}}`,
		`{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":2}}`,
	), FormatAuto)
	if len(res.Errors) != 0 || res.ErrorKind != "" || len(res.Notices) != 1 {
		t.Fatalf("errors %q kind %q notices %q", res.Errors, res.ErrorKind, res.Notices)
	}
	res = parseString(t, lines(
		`{"type":"thread.started","thread_id":"th-2"}`, `{"type":"turn.started"}`, notice,
		`{"type":"error","message":"unexpected status 401 Unauthorized: Incorrect API key provided"}`,
		`{"type":"turn.failed","error":{"message":"unexpected status 401 Unauthorized: Incorrect API key provided"}}`,
	), FormatAuto)
	if len(res.Errors) != 1 || res.Errors[0] != "codex turn.failed: unexpected status 401 Unauthorized: Incorrect API key provided" || res.ErrorKind != "authentication" {
		t.Fatalf("errors %q kind %q", res.Errors, res.ErrorKind)
	}
}
