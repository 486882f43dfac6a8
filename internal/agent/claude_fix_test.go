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
