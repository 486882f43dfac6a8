package agent

import (
	"encoding/json"
	"strings"
	"testing"
)

// Cursor and Amp print Claude-like events: the binary decides the format
// name; usage and cost they do not report stay unknown, never 0.
func TestLookalikes(t *testing.T) {
	cursor := lines(
		`{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"c-1","model":"Claude 4 Sonnet","permissionMode":"default"}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"fix it"}]},"session_id":"c-1"}`,
		`{"type":"tool_call","subtype":"started","call_id":"call_1","tool_call":{"shellToolCall":{"args":{"command":"go test ./..."}}},"session_id":"c-1"}`,
		`{"type":"tool_call","subtype":"completed","call_id":"call_1","tool_call":{"shellToolCall":{"args":{"command":"go test ./..."},"result":{"error":{"stderr":"FAIL","exitCode":1}}}},"session_id":"c-1"}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Fixed."}]},"session_id":"c-1"}`,
		`{"type":"result","subtype":"success","duration_ms":1234,"duration_api_ms":1234,"is_error":false,"result":"Fixed.","session_id":"c-1","request_id":"r"}`)
	amp := lines(
		`{"type":"system","subtype":"init","cwd":"/w","session_id":"T-1","tools":["Bash"],"mcp_servers":[]}`,
		`{"type":"assistant","message":{"type":"message","role":"assistant","content":[{"type":"text","text":"Done."}],"stop_reason":"end_turn"},"parent_tool_use_id":null,"session_id":"T-1"}`,
		`{"type":"result","subtype":"success","duration_ms":10,"is_error":false,"num_turns":1,"result":"Done.","session_id":"T-1"}`)
	for _, tc := range []struct{ in, binary, format, final string }{
		{cursor, "cursor-agent", FormatCursor, "Fixed."},
		{amp, "amp", FormatAmp, "Done."},
		{amp, "", FormatClaude, "Done."},
	} {
		res, err := ParseOptions(strings.NewReader(tc.in), Options{Binary: tc.binary, Warn: testWarner(t)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Format != tc.format || res.FinalMessage != tc.final {
			t.Errorf("%s: format %q final %q", tc.binary, res.Format, res.FinalMessage)
		}
		wantUsage(t, res.Usage, -1, -1, -1, -1)
		if res.CostUSD != nil {
			t.Errorf("%s: cost %v, want unknown", tc.binary, *res.CostUSD)
		}
	}
	res := parseString(t, cursor, FormatCursor)
	got, _ := json.Marshal(res.ToolCalls)
	if want := `[{"tool_name":"shell","arguments_summary":"{\"command\":\"go test ./...\"}","result_summary":"{\"stderr\":\"FAIL\",\"exitCode\":1}","is_error":true}]`; string(got) != want {
		t.Errorf("cursor calls\n got %s\nwant %s", got, want)
	}
	// --format always overrides detection and the binary.
	res, _ = ParseOptions(strings.NewReader(amp), Options{Format: FormatText, Binary: "amp"})
	if res.Format != FormatText {
		t.Errorf("format %q", res.Format)
	}
}

// Detection by what only each format has, never by a shared type name.
func TestDetectFormats(t *testing.T) {
	for _, tc := range []struct{ in, binary, want string }{
		{`{"type":"init","timestamp":"t","session_id":"g","model":"gemini-2.5-pro"}` + "\n" + `{"type":"result","timestamp":"t","status":"success","stats":{"input_tokens":3}}`, "", FormatGemini},
		{`{"type":"result","timestamp":"t","status":"success","stats":{"input_tokens":3}}`, "", FormatGemini},
		{"{\n  \"session_id\": \"g\",\n  \"response\": \"hi\",\n  \"stats\": {\"models\": {}}\n}\n", "", FormatGemini},
		{`{"type":"error","timestamp":1,"sessionID":"ses_1","error":{"name":"UnknownError","data":{"message":"boom"}}}`, "", FormatOpencode},
		{`{"type":"step_start","timestamp":1,"sessionID":"ses_1","part":{"type":"step-start"}}`, "", FormatOpencode},
		{`{"type":"session.start","data":{"sessionId":"x"},"id":"1","timestamp":"t","parentId":null}`, "", FormatCopilot},
		{`{"type":"assistant","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"cut off"}]},"session_id":"s"}`, "", FormatClaude},
		{`{"type":"system","subtype":"init","session_id":"s"}`, "cursor-agent", FormatCursor},
		{`{"type":"error","message":"something"}`, "", FormatText},
		{`{"type":"result","result":"x"}`, "", FormatText},
	} {
		res, err := ParseOptions(strings.NewReader(tc.in+"\n"), Options{Binary: tc.binary})
		if err != nil {
			t.Fatal(err)
		}
		if res.Format != tc.want {
			t.Errorf("%.60q: %s, want %s", tc.in, res.Format, tc.want)
		}
	}
}

// Gemini CLI's --output-format json prints session_id, then response,
// then stats: a response longer than detection's window hid the stats,
// and the whole answer was read as text, its tokens lost.
func TestDetectGeminiJSONLongResponse(t *testing.T) {
	long := strings.Repeat("word ", peekBytes/4)
	stats := `{"models": {"gemini-2.5-pro": {"tokens": {"prompt": 120, "candidates": 30, "cached": 20}}}}`
	for _, head := range []string{"{\n  \"session_id\": \"g\",\n  \"response\": ", "{\n  \"response\": "} {
		in := head + `"` + long + `",` + "\n  \"stats\": " + stats + "\n}\n"
		res, err := ParseOptions(strings.NewReader(in), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Format != FormatGemini || res.FinalMessage != strings.TrimSpace(long) {
			t.Errorf("%.40q: format %s, final message of %d bytes", head, res.Format, len(res.FinalMessage))
		}
		if res.Usage.InputTokens == nil || *res.Usage.InputTokens != 100 {
			t.Errorf("%.40q: input tokens %v, want 100", head, res.Usage.InputTokens)
		}
	}
	// a text answer that is a JSON object of another shape stays text
	res, err := ParseOptions(strings.NewReader("{\n  \"answer\": \""+long+"\"\n}\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != FormatText {
		t.Errorf("an object of other keys: %s, want text", res.Format)
	}
}
