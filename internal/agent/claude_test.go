package agent

import (
	"encoding/json"
	"strings"
	"testing"
)

// Lines in the shape Claude Code 2.x prints (compact JSON, as the CLI
// writes it; the samples are re-serialized with spaces).
const (
	ccInit   = `{"type":"system","subtype":"init","cwd":"/w","session_id":"s-1","tools":["Bash"],"model":"claude-opus-4-7"}`
	ccUseA1  = `{"type":"assistant","message":{"id":"msg_A","type":"message","role":"assistant","content":[{"type":"thinking","thinking":"","signature":"x"}],"usage":{"input_tokens":6,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000,"output_tokens":30}},"parent_tool_use_id":null,"session_id":"s-1"}`
	ccUseA2  = `{"type":"assistant","message":{"id":"msg_A","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"go test ./..."}}],"usage":{"input_tokens":6,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000,"output_tokens":30}},"parent_tool_use_id":null,"session_id":"s-1"}`
	ccErrRes = `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"exit status 1\nFAIL calc","is_error":true}]},"parent_tool_use_id":null,"session_id":"s-1"}`
	ccUseB   = `{"type":"assistant","message":{"id":"msg_B","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_2","name":"Read","input":{"file_path":"/w/calc.go"}}],"usage":{"input_tokens":2,"cache_creation_input_tokens":50,"cache_read_input_tokens":1100,"output_tokens":20}},"parent_tool_use_id":null,"session_id":"s-1"}`
	ccArrRes = `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_2","type":"tool_result","content":[{"type":"text","text":"package calc"},{"type":"text","text":"func Add()"}]}]},"parent_tool_use_id":null,"session_id":"s-1"}`
	ccSubUse = `{"type":"assistant","message":{"id":"msg_S","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_9","name":"Grep","input":{"pattern":"Add"}},{"type":"text","text":"subagent says hi"}],"usage":{"input_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":10,"output_tokens":5}},"parent_tool_use_id":"toolu_task","session_id":"s-1"}`
	ccSubRes = `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_9","type":"tool_result","content":"calc.go:3"}]},"parent_tool_use_id":"toolu_task","session_id":"s-1"}`
	ccTextC  = `{"type":"assistant","message":{"id":"msg_C","type":"message","role":"assistant","content":[{"type":"text","text":"Fixed Add.\n<promise>COMPLETE</promise>"}],"usage":{"input_tokens":1,"cache_creation_input_tokens":10,"cache_read_input_tokens":1200,"output_tokens":15}},"parent_tool_use_id":null,"session_id":"s-1"}`
	ccEvent  = `{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Fix"}},"session_id":"s-1","parent_tool_use_id":null}`
	ccResult = `{"type":"result","subtype":"success","is_error":false,"result":"Fixed Add.\n<promise>COMPLETE</promise>","session_id":"s-1","total_cost_usd":0.5,"usage":{"input_tokens":10,"cache_creation_input_tokens":160,"cache_read_input_tokens":3310,"output_tokens":70}}`
)

func parseString(t *testing.T, s, format string) *Result {
	t.Helper()
	res, err := Parse(strings.NewReader(s), format, testWarner(t))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

var fullStream = []string{ccInit, ccUseA1, ccEvent, ccUseA2, ccErrRes, ccUseB, ccArrRes, ccSubUse, ccSubRes, ccTextC, ccResult}

func TestClaudeResultTotalsWin(t *testing.T) {
	res := parseString(t, lines(fullStream...), FormatAuto)
	wantUsage(t, res.Usage, 10, 70, 3310, 160)
	wantCost(t, res.CostUSD, 0.5)
	if res.FinalMessage != "Fixed Add.\n<promise>COMPLETE</promise>" {
		t.Errorf("final %q", res.FinalMessage)
	}
	checkCalls(t, res)
}

func checkCalls(t *testing.T, res *Result) {
	t.Helper()
	got, _ := json.Marshal(res.ToolCalls)
	want := `[{"tool_name":"Bash","arguments_summary":"{\"command\":\"go test ./...\"}","result_summary":"exit status 1\nFAIL calc","is_error":true},` +
		`{"tool_name":"Read","arguments_summary":"{\"file_path\":\"/w/calc.go\"}","result_summary":"package calc\nfunc Add()","is_error":false},` +
		`{"tool_name":"Grep","arguments_summary":"{\"pattern\":\"Add\"}","result_summary":"calc.go:3","is_error":false,"subagent":true}]`
	if string(got) != want {
		t.Errorf("tool calls\n got %s\nwant %s", got, want)
	}
}

// A run cut off before its result line: usage is the sum of the messages,
// each message id counted once though it is repeated; cost stays unknown.
func TestClaudeCutOffSumsEachMessageOnce(t *testing.T) {
	res := parseString(t, lines(ccInit, ccUseA1, ccUseA2, ccErrRes, ccUseB, ccArrRes, ccSubUse, ccSubRes, ccTextC), FormatAuto)
	wantUsage(t, res.Usage, 6+2+1+1, 30+20+5+15, 1000+1100+10+1200, 100+50+0+10)
	if res.CostUSD != nil {
		t.Errorf("cost %v, want unknown", *res.CostUSD)
	}
	if res.FinalMessage != "Fixed Add.\n<promise>COMPLETE</promise>" {
		t.Errorf("final %q, want the last top-level assistant text", res.FinalMessage)
	}
	checkCalls(t, res)
}

func TestClaudeSkipsBannersAndTornLine(t *testing.T) {
	in := "Loading shell profile...\n\x1b[33mwarning\x1b[0m: nvm not found\n" + lines(fullStream...) + `{"type":"assistant","message":{"id":"msg_Z","con`
	var warned []string
	res, err := Parse(strings.NewReader(in), FormatAuto, func(msg any, kv ...any) { warned = append(warned, kv[3].(string)) })
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != FormatClaude || res.Skipped != 3 {
		t.Fatalf("format %q skipped %d", res.Format, res.Skipped)
	}
	if strings.Join(warned, ",") != "not JSON,not JSON,torn last line" {
		t.Errorf("warnings %q", warned)
	}
	wantUsage(t, res.Usage, 10, 70, 3310, 160)
	checkCalls(t, res)
}

// A 10 MB tool result on one line is decoded like any other; a line over
// MaxLineBytes is skipped with a warning and the rest still parsed.
func TestClaudeLongLines(t *testing.T) {
	big := strings.Repeat("x", 10<<20)
	bigRes := `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"` + big + `"}]},"parent_tool_use_id":null}`
	huge := `{"type":"user","message":{"content":"` + strings.Repeat("y", MaxLineBytes) + `"}}`
	res := parseString(t, lines(ccInit, ccUseA2, bigRes, huge, ccResult), FormatAuto)
	if len(res.ToolCalls) != 1 || res.ToolCalls[0].ResultSummary != big[:200] {
		t.Fatalf("tool calls %+v", res.ToolCalls)
	}
	if res.Skipped != 1 {
		t.Errorf("skipped %d, want the over-long line", res.Skipped)
	}
	wantUsage(t, res.Usage, 10, 70, 3310, 160)
}

// --output-format json --verbose prints every message as one JSON array,
// on one line or pretty-printed.
func TestClaudeVerboseJSONArray(t *testing.T) {
	oneLine := "[" + strings.Join(fullStream, ",") + "]\n"
	var msgs []json.RawMessage
	if err := json.Unmarshal([]byte(oneLine), &msgs); err != nil {
		t.Fatal(err)
	}
	pretty, _ := json.MarshalIndent(msgs, "", "  ")
	for name, in := range map[string]string{"one line": oneLine, "pretty": string(pretty), "after a banner": "npm warn config\n" + oneLine} {
		t.Run(name, func(t *testing.T) {
			res := parseString(t, in, FormatAuto)
			if res.Format != FormatClaude {
				t.Fatalf("format %q", res.Format)
			}
			wantUsage(t, res.Usage, 10, 70, 3310, 160)
			wantCost(t, res.CostUSD, 0.5)
			checkCalls(t, res)
		})
	}
}

func TestClaudeErrorResult(t *testing.T) {
	in := lines(ccInit, `{"type":"result","subtype":"error_max_turns","is_error":true,"session_id":"s-1","total_cost_usd":0.01,"usage":{"input_tokens":1,"output_tokens":2}}`)
	res := parseString(t, in, FormatClaude)
	if len(res.Errors) != 1 || res.Errors[0] != "claude result: error_max_turns" {
		t.Errorf("errors %q", res.Errors)
	}
	wantUsage(t, res.Usage, 1, 2, -1, -1)
}
