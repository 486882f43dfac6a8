package agent

import (
	"strconv"
	"strings"
	"testing"
)

// Shapes real Claude Code transcripts take that the first parser got wrong.
func TestClaudeTotals(t *testing.T) {
	msg := func(id, sid string, in, out, cr, cc int) string {
		return `{"type":"assistant","message":{"id":"` + id + `","role":"assistant","content":[{"type":"text","text":"t"}],"usage":{"input_tokens":` +
			itoa(in) + `,"output_tokens":` + itoa(out) + `,"cache_read_input_tokens":` + itoa(cr) + `,"cache_creation_input_tokens":` + itoa(cc) + `}},"parent_tool_use_id":null,"session_id":"` + sid + `"}`
	}
	for _, tc := range []struct {
		name                  string
		in                    []string
		inT, out, cread, ccre int64
		cost                  float64 // -1: unknown
	}{
		{"result without usage falls back to the messages",
			[]string{msg("m1", "s1", 3, 10, 100, 50), msg("m1", "s1", 3, 10, 100, 50), msg("m2", "s1", 2, 5, 200, 0),
				`{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s1","total_cost_usd":0.25}`},
			5, 15, 300, 50, 0.25},
		{"result usage lacking cache fields: those from the messages",
			[]string{msg("m1", "s1", 3, 10, 100, 50),
				`{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s1","total_cost_usd":0.25,"usage":{"input_tokens":7,"output_tokens":11}}`},
			7, 11, 100, 50, 0.25},
		{"older CLIs name the cost cost_usd",
			[]string{`{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s1","cost_usd":0.125,"usage":{"input_tokens":1,"output_tokens":2,"cache_read_input_tokens":3,"cache_creation_input_tokens":4}}`},
			1, 2, 3, 4, 0.125},
		{"two sessions in one stdout add up",
			[]string{msg("m1", "s1", 1, 1, 1, 1),
				`{"type":"result","subtype":"success","is_error":false,"result":"one","session_id":"s1","total_cost_usd":0.5,"usage":{"input_tokens":10,"output_tokens":20,"cache_read_input_tokens":30,"cache_creation_input_tokens":40}}`,
				msg("m2", "s2", 1, 1, 1, 1),
				`{"type":"result","subtype":"success","is_error":false,"result":"two","session_id":"s2","total_cost_usd":0.25,"usage":{"input_tokens":1,"output_tokens":2,"cache_read_input_tokens":3,"cache_creation_input_tokens":4}}`},
			11, 22, 33, 44, 0.75},
		{"a later result of the same session restates its totals",
			[]string{`{"type":"result","subtype":"success","is_error":false,"result":"one","session_id":"s1","total_cost_usd":0.5,"usage":{"input_tokens":10,"output_tokens":20,"cache_read_input_tokens":30,"cache_creation_input_tokens":40}}`,
				`{"type":"result","subtype":"success","is_error":false,"result":"two","session_id":"s1","total_cost_usd":0.75,"usage":{"input_tokens":15,"output_tokens":25}}`},
			15, 25, 30, 40, 0.75},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := parseString(t, lines(tc.in...), FormatClaude)
			wantUsage(t, res.Usage, tc.inT, tc.out, tc.cread, tc.ccre)
			if tc.cost < 0 {
				if res.CostUSD != nil {
					t.Errorf("cost %v, want unknown", *res.CostUSD)
				}
			} else {
				wantCost(t, res.CostUSD, tc.cost)
			}
		})
	}
}

func TestClaudeErrorsArray(t *testing.T) {
	res := parseString(t, lines(ccInit, `{"type":"result","subtype":"error_during_execution","is_error":true,"session_id":"s-1","errors":["Permission denied: /etc/shadow","Tool failed"]}`), FormatClaude)
	if len(res.Errors) != 1 || !strings.Contains(res.Errors[0], "Permission denied: /etc/shadow") || !strings.Contains(res.Errors[0], "Tool failed") {
		t.Errorf("errors %q", res.Errors)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// Claude Code repeats an assistant message once per content block, and
// the later copies carry the fuller usage: the last copy per id counts. A
// stream cut before its result read the first copy's 28 output tokens.
func TestClaudeLastCopyPerMessage(t *testing.T) {
	copyOf := func(block string, out int) string {
		return `{"type":"assistant","message":{"id":"msg_01","model":"claude-opus-4-1","role":"assistant","content":[` + block +
			`],"usage":{"input_tokens":4,"cache_creation_input_tokens":1520,"cache_read_input_tokens":14900,"output_tokens":` + itoa(out) + `}},"parent_tool_use_id":null,"session_id":"s1"}`
	}
	res := parseString(t, lines(
		`{"type":"system","subtype":"init","session_id":"s1","model":"claude-opus-4-1"}`,
		copyOf(`{"type":"thinking","thinking":"…"}`, 28),
		copyOf(`{"type":"text","text":"I will edit calc.go."}`, 28),
		copyOf(`{"type":"tool_use","id":"toolu_1","name":"Edit","input":{"file_path":"calc.go"}}`, 1261),
	), FormatAuto)
	wantUsage(t, res.Usage, 4, 1261, 14900, 1520)
}

// Current cursor-agent ends with a camelCase usage on its result line; its
// errors are labelled as Cursor's.
func TestCursorResultUsageAndLabel(t *testing.T) {
	res := parseString(t, lines(
		`{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"c-1","model":"Auto","permissionMode":"default"}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"done"}]},"session_id":"c-1"}`,
		`{"type":"result","subtype":"success","duration_ms":5234,"is_error":false,"result":"done","session_id":"c-1","request_id":"r-1","usage":{"inputTokens":1200,"outputTokens":340,"cacheReadTokens":5000,"cacheWriteTokens":80}}`,
	), FormatCursor)
	wantUsage(t, res.Usage, 1200, 340, 5000, 80)
	res = parseString(t, lines(
		`{"type":"result","subtype":"error_during_execution","is_error":true,"result":"","session_id":"c-2","errors":["model unavailable"]}`,
	), FormatCursor)
	if len(res.Errors) != 1 || res.Errors[0] != "cursor result: error_during_execution: model unavailable" {
		t.Fatalf("errors %q", res.Errors)
	}
}

// A Gemini 429 on stdout (stderr merged into it) is a rate limit with its
// text; the same lines before a result that succeeded are not.
func TestGeminiLimitOnStdout(t *testing.T) {
	init := `{"type":"init","timestamp":"2026-11-26T03:00:00.000Z","session_id":"g-1","model":"gemini-2.5-pro"}`
	retry := `Attempt 1 failed with status 429. Retrying with backoff... ApiError: {"error":{"code":429,"message":"Resource exhausted. Please try again later.","status":"RESOURCE_EXHAUSTED"}}`
	res := parseString(t, lines(init, `{"type":"message","timestamp":"2026-11-26T03:00:00.100Z","role":"user","content":"fix it"}`, retry), FormatGemini)
	if res.RateLimit == nil || res.ErrorKind != "rate_limit" || len(res.Errors) != 1 || !strings.Contains(res.Errors[0], "failed with status 429") {
		t.Fatalf("rate limit %+v kind %q errors %q", res.RateLimit, res.ErrorKind, res.Errors)
	}
	res = parseString(t, lines(init, retry,
		`{"type":"message","role":"assistant","content":"done","delta":true}`,
		`{"type":"result","timestamp":"2026-11-26T03:00:09.000Z","status":"success","stats":{"total_tokens":30,"input_tokens":20,"output_tokens":10,"duration_ms":9000,"tool_calls":0}}`), FormatGemini)
	if res.RateLimit != nil || len(res.Errors) != 0 {
		t.Fatalf("rate limit %+v errors %q after a success", res.RateLimit, res.Errors)
	}
}

// Gemini's --output-format json prints no call of its own, only counts in
// its stats: the calls are listed from them, by name, failures marked.
func TestGeminiJSONToolsFromStats(t *testing.T) {
	res := parseString(t, `{
  "session_id": "g-2",
  "response": "Fixed calc.go.",
  "stats": {
    "models": {"gemini-2.5-pro": {"api": {"totalRequests": 3}, "tokens": {"prompt": 900, "candidates": 40, "total": 990, "cached": 100, "thoughts": 50, "tool": 0}}},
    "tools": {"totalCalls": 4, "totalSuccess": 3, "totalFail": 1, "totalDurationMs": 120,
      "byName": {"run_shell_command": {"count": 1, "success": 0, "fail": 1, "durationMs": 100}, "read_file": {"count": 2, "success": 2, "fail": 0, "durationMs": 20}}},
    "files": {"totalLinesAdded": 1, "totalLinesRemoved": 1}
  }
}
`, FormatAuto)
	if res.Format != FormatGemini || len(res.ToolCalls) != 4 {
		t.Fatalf("format %s calls %+v", res.Format, res.ToolCalls)
	}
	got := []string{}
	for _, c := range res.ToolCalls {
		got = append(got, c.ToolName+":"+strconv.FormatBool(c.IsError))
	}
	if strings.Join(got, " ") != "read_file:false read_file:false run_shell_command:true (unknown):false" {
		t.Errorf("calls %v", got)
	}
	wantUsage(t, res.Usage, 800, 40, 100, -1)
}

// Claude Code stopped at its --max-turns (2.1.330's result line): the
// CLI's own limit, not an error of the API.
func TestClaudeMaxTurnsKind(t *testing.T) {
	res := parseString(t, `{"type":"result","subtype":"error_max_turns","duration_ms":2403,"is_error":true,"num_turns":2,`+
		`"session_id":"s","total_cost_usd":0.001,"usage":{"input_tokens":120,"output_tokens":40},"errors":["Reached maximum number of turns (1)"]}`, FormatAuto)
	if res.ErrorKind != "max_turns" || len(res.Errors) != 1 || res.Errors[0] != "claude result: error_max_turns: Reached maximum number of turns (1)" {
		t.Fatalf("kind %q errors %q", res.ErrorKind, res.Errors)
	}
}

// Claude Code stopped at its --max-budget-usd: its own spending limit, not
// an error of the API (was api_error), and an error even when the result
// says is_error false (was no error at all).
func TestClaudeMaxBudgetKind(t *testing.T) {
	for _, isErr := range []string{"true", "false"} {
		res := parseString(t, `{"type":"result","subtype":"error_max_budget_usd","duration_ms":500,"is_error":`+isErr+`,"num_turns":1,`+
			`"session_id":"s","total_cost_usd":0.52,"usage":{"input_tokens":1,"output_tokens":2},"errors":["Reached maximum budget ($0.5)"]}`, FormatAuto)
		if res.ErrorKind != "max_budget" || len(res.Errors) != 1 || res.Errors[0] != "claude result: error_max_budget_usd: Reached maximum budget ($0.5)" {
			t.Errorf("is_error %s: kind %q errors %q", isErr, res.ErrorKind, res.Errors)
		}
	}
}
