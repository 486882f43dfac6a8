package agent

import "testing"

// The older `codex exec --json`, before openai/codex#4525 (September 2025)
// made it thread.started and item.*: a config line (its session_id since
// openai/codex#3861), the prompt echoed, then {"id":…,"msg":{…}} events.
// loop-step read it as text: no tokens, no calls, the raw JSON as the final
// message.
func TestCodexMsgEnvelope(t *testing.T) {
	in := lines(
		`{"approval":"never","session_id":"01995d67-f645-7843-b5c4-36b062746557","model":"gpt-5-codex","sandbox":"workspace-write","provider":"openai"}`,
		`{"prompt":"list the files"}`,
		`{"id":"0","msg":{"type":"task_started","model_context_window":272000}}`,
		`{"id":"0","msg":{"type":"agent_reasoning","text":"**Listing files**"}}`,
		`{"id":"0","msg":{"type":"exec_command_begin","call_id":"call_1","command":["bash","-lc","ls"],"cwd":"/tmp/x"}}`,
		`{"id":"0","msg":{"type":"exec_command_end","call_id":"call_1","stdout":"a.txt\n","stderr":"","exit_code":0}}`,
		`{"id":"0","msg":{"type":"exec_command_begin","call_id":"call_2","command":["bash","-lc","cat b.txt"],"cwd":"/tmp/x"}}`,
		`{"id":"0","msg":{"type":"exec_command_end","call_id":"call_2","stdout":"","stderr":"cat: b.txt: No such file","exit_code":1}}`,
		`{"id":"0","msg":{"type":"patch_apply_begin","call_id":"call_3","auto_approved":true,"changes":{"notes.txt":{"add":{"content":"hi\n"}}}}}`,
		`{"id":"0","msg":{"type":"patch_apply_end","call_id":"call_3","stdout":"Success. Updated the following files:\nA notes.txt\n","stderr":"","success":true}}`,
		`{"id":"0","msg":{"type":"mcp_tool_call_begin","call_id":"call_4","invocation":{"server":"git-hub","tool":"search_issues","arguments":{"q":"is:open"}}}}`,
		`{"id":"0","msg":{"type":"mcp_tool_call_end","call_id":"call_4","invocation":{"server":"git-hub","tool":"search_issues","arguments":{"q":"is:open"}},"result":{"Err":"tool call failed"}}}`,
		`{"id":"0","msg":{"type":"token_count","input_tokens":1674,"cached_input_tokens":1627,"output_tokens":384,"reasoning_output_tokens":384,"total_tokens":2058}}`,
		`{"id":"0","msg":{"type":"token_count","input_tokens":2000,"cached_input_tokens":1600,"output_tokens":16,"reasoning_output_tokens":0,"total_tokens":2016}}`,
		`{"id":"0","msg":{"type":"agent_message","message":"Done.\n<promise>COMPLETE</promise>"}}`,
		`{"id":"0","msg":{"type":"task_complete","last_agent_message":"Done.\n<promise>COMPLETE</promise>"}}`,
	)
	res := parseString(t, in, FormatAuto)
	if res.Format != FormatCodex || res.SessionID != "01995d67-f645-7843-b5c4-36b062746557" {
		t.Fatalf("format %q session %q", res.Format, res.SessionID)
	}
	// Each flat token_count is one model response's: they add up.
	wantUsage(t, res.Usage, 447, 400, 3227, -1)
	if res.FinalMessage != "Done.\n<promise>COMPLETE</promise>" || len(res.Errors) != 0 {
		t.Errorf("final %q errors %q", res.FinalMessage, res.Errors)
	}
	got := ""
	for _, c := range res.ToolCalls {
		got += c.ToolName + ":" + c.ArgumentsSummary + ":" + map[bool]string{true: "err", false: "ok"}[c.IsError] + " "
	}
	if want := "command_execution:bash -lc ls:ok command_execution:bash -lc cat b.txt:err file_change:add notes.txt:ok mcp__git_hub__search_issues:{\"q\":\"is:open\"}:err "; got != want {
		t.Errorf("calls %s\nwant  %s", got, want)
	}

	// Later versions put the running total under info: the last counts.
	res = parseString(t, lines(
		`{"id":"0","msg":{"type":"token_count","info":{"total_token_usage":{"input_tokens":5000,"cached_input_tokens":3000,"output_tokens":100,"reasoning_output_tokens":64,"total_tokens":5100},"last_token_usage":{"input_tokens":5000,"cached_input_tokens":3000,"output_tokens":100,"reasoning_output_tokens":64,"total_tokens":5100},"model_context_window":272000}}}`,
		`{"id":"0","msg":{"type":"token_count","info":{"total_token_usage":{"input_tokens":9000,"cached_input_tokens":7000,"output_tokens":150,"reasoning_output_tokens":64,"total_tokens":9150},"last_token_usage":{"input_tokens":4000,"cached_input_tokens":4000,"output_tokens":50,"reasoning_output_tokens":0,"total_tokens":4050},"model_context_window":272000}}}`,
		`{"id":"0","msg":{"type":"error","message":"stream disconnected before completion: 401 Unauthorized"}}`,
	), FormatAuto)
	wantUsage(t, res.Usage, 2000, 150, 7000, -1)
	if res.Format != FormatCodex || res.ErrorKind != "authentication" {
		t.Errorf("format %q kind %q errors %q", res.Format, res.ErrorKind, res.Errors)
	}
}
