package agent

import (
	"os"
	"testing"
)

// Claude Code 2.1.330 in -p mode without a permission that allows edits:
// its Write is refused (a tool_result error), and its result line lists
// the refusal in permission_denials. The call must read as denied, not as
// a tool that failed, so that the driver can say why nothing changed.
func TestClaudePermissionDenied(t *testing.T) {
	data, err := os.ReadFile(transcriptsDir + "/claude-2.1.330-permission-denied.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	res := parseString(t, string(data), FormatAuto)
	if len(res.ToolCalls) != 1 || !res.ToolCalls[0].Denied || !res.ToolCalls[0].IsError || res.ToolCalls[0].ToolName != "Write" {
		t.Fatalf("tool calls %+v, want one denied Write", res.ToolCalls)
	}
	if res.ErrorKind != "" || len(res.Errors) != 0 {
		t.Fatalf("a denial is no step error: kind %q errors %q", res.ErrorKind, res.Errors)
	}
}

// A denial the result names for a call whose request the stream lacks
// (cut, or past --max-tool-calls' room) is still counted as denied.
func TestClaudePermissionDeniedWithoutCall(t *testing.T) {
	res := parseString(t, `{"type":"result","subtype":"success","is_error":false,"result":"no","session_id":"s",`+
		`"permission_denials":[{"tool_name":"Bash","tool_use_id":"t9","tool_input":{"command":"go test ./..."}}]}`, FormatAuto)
	if len(res.ToolCalls) != 1 || !res.ToolCalls[0].Denied || res.ToolCalls[0].ToolName != "Bash" ||
		res.ToolCalls[0].ArgumentsSummary != `{"command":"go test ./..."}` {
		t.Fatalf("tool calls %+v", res.ToolCalls)
	}
}
