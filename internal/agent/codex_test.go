package agent

import (
	"encoding/json"
	"testing"
)

func TestCodexToolsAndFailures(t *testing.T) {
	in := lines(
		`{"type":"thread.started","thread_id":"th-1"}`,
		`{"type":"turn.started"}`,
		`{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"bash -lc 'go test ./...'","aggregated_output":"","status":"in_progress"}}`,
		`{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"bash -lc 'go test ./...'","aggregated_output":"--- FAIL: TestAdd\n","exit_code":1,"status":"failed"}}`,
		`{"type":"item.completed","item":{"id":"item_2","type":"command_execution","command":"rm -rf /","aggregated_output":"","status":"declined"}}`,
		`{"type":"item.completed","item":{"id":"item_3","type":"file_change","changes":[{"path":"calc.go","kind":"update"},{"path":"new.go","kind":"add"}],"status":"completed"}}`,
		`{"type":"item.started","item":{"id":"item_4","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"Add"},"status":"in_progress"}}`,
		`{"type":"item.completed","item":{"id":"item_4","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"Add"},"result":null,"error":{"message":"server not reachable"},"status":"failed"}}`,
		`{"type":"item.completed","item":{"id":"item_5","type":"mcp_tool_call","server":"docs","tool":"fetch","arguments":{"url":"x"},"result":{"content":[{"type":"text","text":"page"}]},"status":"completed"}}`,
		`{"type":"item.completed","item":{"id":"item_6","type":"web_search","query":"go testing"}}`,
		`{"type":"item.completed","item":{"id":"item_7","type":"agent_message","text":"first"}}`,
		`{"type":"item.completed","item":{"id":"item_8","type":"agent_message","text":"done\n<promise>COMPLETE</promise>"}}`,
		`{"type":"turn.completed","usage":{"input_tokens":1000,"cached_input_tokens":600,"output_tokens":50}}`,
		`{"type":"turn.failed","error":{"message":"stream disconnected"}}`,
		`{"type":"error","message":"reconnecting 1/5"}`,
	)
	res := parseString(t, in, FormatAuto)
	if res.Format != FormatCodex || res.SessionID != "th-1" {
		t.Fatalf("format %q session %q", res.Format, res.SessionID)
	}
	wantUsage(t, res.Usage, 400, 50, 600, -1)
	if res.FinalMessage != "done\n<promise>COMPLETE</promise>" {
		t.Errorf("final %q", res.FinalMessage)
	}
	got, _ := json.Marshal(res.ToolCalls)
	want := `[{"tool_name":"command_execution","arguments_summary":"bash -lc 'go test ./...'","result_summary":"--- FAIL: TestAdd\n","is_error":true},` +
		`{"tool_name":"command_execution","arguments_summary":"rm -rf /","result_summary":"","is_error":true},` +
		`{"tool_name":"file_change","arguments_summary":"update calc.go, add new.go","result_summary":"completed","is_error":false},` +
		`{"tool_name":"mcp__docs__search","arguments_summary":"{\"q\":\"Add\"}","result_summary":"server not reachable","is_error":true},` +
		`{"tool_name":"mcp__docs__fetch","arguments_summary":"{\"url\":\"x\"}","result_summary":"page","is_error":false},` +
		`{"tool_name":"web_search","arguments_summary":"go testing","result_summary":"","is_error":false}]`
	if string(got) != want {
		t.Errorf("tool calls\n got %s\nwant %s", got, want)
	}
	if len(res.Errors) != 2 || res.Errors[0] != "codex turn.failed: stream disconnected" || res.Errors[1] != "codex error: reconnecting 1/5" {
		t.Errorf("errors %q", res.Errors)
	}
}

// Codex started a command and was cut off: the call is listed once, without a result.
func TestCodexStartedNotCompleted(t *testing.T) {
	res := parseString(t, lines(
		`{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"sleep 100","aggregated_output":"","status":"in_progress"}}`,
		`{"type":"item.updated","item":{"id":"item_1","type":"command_execution","command":"sleep 100","aggregated_output":"","status":"in_progress"}}`,
	), FormatCodex)
	if len(res.ToolCalls) != 1 || res.ToolCalls[0].ArgumentsSummary != "sleep 100" {
		t.Errorf("calls %+v", res.ToolCalls)
	}
	wantUsage(t, res.Usage, -1, -1, -1, -1)
}
