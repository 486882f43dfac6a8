package agent

import (
	"strings"
	"testing"
)

func TestDescribe(t *testing.T) {
	for _, tt := range []struct{ line, want string }{
		{`{"type":"system","subtype":"init","session_id":"s","model":"claude-opus-4"}`, "session started (claude-opus-4)"},
		{`{"type":"assistant","message":{"content":[{"type":"text","text":"I will fix\nthe  add bug."},{"type":"tool_use","id":"t1","name":"Edit","input":{"file_path":"calc.go","old_string":"a-b"}}]}}`,
			"I will fix the add bug.\n→ Edit: calc.go"},
		{`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"go test ./..."}}]}}`, "→ Bash: go test ./..."},
		{`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"TodoWrite","input":{"todos":[1]}}]}}`, `→ TodoWrite {"todos":[1]}`},
		{`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}`, ""},
		{`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"file not found"}]}}`, "tool error: file not found"},
		{`{"type":"result","subtype":"success","num_turns":3,"total_cost_usd":0.1234,"result":"done"}`, "result: success, 3 turns, $0.12"},
		{`{"type":"system","subtype":"api_retry","attempt":2,"max_retries":10,"retry_delay_ms":4000,"error_status":529,"error":"overloaded_error"}`, ""},
		{`{"type":"item.started","item":{"id":"i1","type":"command_execution","command":"bash -lc ls","status":"in_progress"}}`, "→ shell: bash -lc ls"},
		{`{"type":"item.completed","item":{"id":"i1","type":"command_execution","command":"bash -lc ls","exit_code":0}}`, ""},
		{`{"type":"item.completed","item":{"id":"i1","type":"command_execution","command":"make","exit_code":2}}`, "exit 2: make"},
		{`{"type":"item.completed","item":{"id":"i2","type":"agent_message","text":"Done."}}`, "Done."},
		{`{"type":"item.completed","item":{"id":"i3","type":"file_change","changes":[{"path":"a.go","kind":"update"},{"path":"b.go","kind":"add"}]}}`, "→ edit: a.go, b.go"},
		{`{"type":"turn.completed","usage":{"input_tokens":5}}`, ""},
		{`{"type":"message","role":"assistant","content":"partial","delta":true}`, ""},
		{`{"type":"tool_use","tool_name":"read_file","parameters":{"path":"x.go"}}`, "→ read_file: x.go"},
		{`not json`, ""},
		// a cost json cannot store is no "$0.00"
		{`{"type":"result","subtype":"success","total_cost_usd":1e400,"result":"done"}`, "result: success"},
	} {
		got := strings.Join(Describe([]byte(tt.line), 80), "\n")
		if got != tt.want {
			t.Errorf("%s:\ngot  %q\nwant %q", tt.line, got, tt.want)
		}
	}
	long := `{"type":"assistant","message":{"content":[{"type":"text","text":"` + strings.Repeat("word ", 40) + `"}]}}`
	if got := Describe([]byte(long), 30)[0]; len([]rune(got)) != 30 || !strings.HasSuffix(got, "…") {
		t.Errorf("cut to 30: %q", got)
	}
}
