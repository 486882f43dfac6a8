package agent

import "testing"

// parseTranscript parses testdata/agents/NAME, its format detected.
func parseTranscript(t *testing.T, name string) *Result {
	t.Helper()
	return parsePath(t, transcriptsDir+"/"+name, FormatAuto)
}

// Gemini CLI 0.61.0 run with -p and no --yolo (nor --approval-mode or
// --allowed-tools): its policy denies the tools that would ask, so it
// leaves write_file and run_shell_command out of its registry and answers
// a call to either with a tool_result error of type tool_not_registered.
// Those calls must read as denied, as Claude's permission_denials do.
func TestGeminiToolsDenied(t *testing.T) {
	res := parseTranscript(t, "gemini-0.61.0-matrix-denied.jsonl")
	if len(res.ToolCalls) != 2 {
		t.Fatalf("tool calls %+v, want write_file and run_shell_command", res.ToolCalls)
	}
	for i, name := range []string{"write_file", "run_shell_command"} {
		if tc := res.ToolCalls[i]; tc.ToolName != name || !tc.Denied || !tc.IsError {
			t.Errorf("call %d: %+v, want %s denied", i, tc, name)
		}
	}
	if res.ErrorKind != "" || len(res.Errors) != 0 {
		t.Fatalf("a denial is no step error: kind %q errors %q", res.ErrorKind, res.Errors)
	}
}

// What tells a refusal apart is the error's type, not its text: a tool the
// model made up is not registered either, and is no refusal; a call the
// policy denies by its arguments (a rule for run_shell_command with a
// commandPrefix) is policy_violation.
func TestGeminiDeniedByType(t *testing.T) {
	res := parseString(t, `{"type":"init","session_id":"s","model":"gemini-2.5-flash"}
{"type":"tool_use","tool_name":"write_files","tool_id":"a","parameters":{"path":"x"}}
{"type":"tool_result","tool_id":"a","status":"error","output":"Tool \"write_files\" not found.","error":{"type":"tool_not_registered","message":"Tool \"write_files\" not found."}}
{"type":"tool_use","tool_name":"run_shell_command","tool_id":"b","parameters":{"command":"rm -rf build"}}
{"type":"tool_result","tool_id":"b","status":"error","output":"Tool execution denied by policy.","error":{"type":"policy_violation","message":"Tool execution denied by policy."}}
{"type":"tool_use","tool_name":"read_file","tool_id":"c","parameters":{"file_path":"y"}}
{"type":"tool_result","tool_id":"c","status":"error","output":"File not found.","error":{"type":"file_not_found","message":"File not found."}}
{"type":"result","status":"success","stats":{"total_tokens":10,"input_tokens":8,"output_tokens":2}}`, FormatAuto)
	if len(res.ToolCalls) != 3 {
		t.Fatalf("tool calls %+v", res.ToolCalls)
	}
	for i, want := range []bool{false, true, false} {
		if tc := res.ToolCalls[i]; tc.Denied != want || !tc.IsError {
			t.Errorf("call %d (%s): denied %v, want %v", i, tc.ToolName, tc.Denied, want)
		}
	}
}

// Codex 0.169.0 run as `codex exec --json` without
// --dangerously-bypass-approvals-and-sandbox (approval never, a read-only
// sandbox) refuses nothing: the command runs and fails, and its item says
// only status failed, exit_code 1 and the shell's "Read-only file system",
// as any failed command. loopkit keeps it a failed call, not a denied one.
func TestCodexReadOnlySandboxIsNoDenial(t *testing.T) {
	res := parseTranscript(t, "codex-0.169.0-read-only-sandbox.jsonl")
	if len(res.ToolCalls) != 1 || !res.ToolCalls[0].IsError || res.ToolCalls[0].Denied {
		t.Fatalf("tool calls %+v, want one failed command, not denied", res.ToolCalls)
	}
}
