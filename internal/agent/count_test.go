package agent

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A figure encoding/json cannot store in an int64 or a float64 (past
// int64, past float64, a fraction, a string) was a made-up 0, and a
// negative one from one call was taken off the others' sum: each is
// unknown now, named in Ignored, and the other calls' figures still add.
func TestUsageFiguresAsPrinted(t *testing.T) {
	for _, bad := range []string{"18446744073709551616", "1e400", "10.5", `"12"`, "-7", "true"} {
		t.Run(bad, func(t *testing.T) {
			costOK := bad == "10.5" // a fraction of a dollar is a cost
			for _, tc := range []struct {
				format, in string
				check      func(u Usage)
			}{
				{FormatClaude, lines(
					`{"type":"assistant","message":{"id":"m1","content":[],"usage":{"input_tokens":5,"output_tokens":`+bad+`}},"session_id":"s"}`,
					`{"type":"assistant","message":{"id":"m2","content":[],"usage":{"input_tokens":3,"output_tokens":4}},"session_id":"s"}`,
					`{"type":"result","subtype":"success","result":"ok","session_id":"s","total_cost_usd":`+bad+`}`),
					func(u Usage) {
						wantUsage(t, u, 8, 4, -1, -1)
						if costOK {
							wantCost(t, u.CostUSD, 10.5)
						} else {
							noCost(t, u)
						}
					}},
				{FormatCodex, lines(`{"type":"thread.started","thread_id":"t"}`,
					`{"type":"turn.completed","usage":{"input_tokens":`+bad+`,"cached_input_tokens":2,"output_tokens":`+bad+`}}`),
					func(u Usage) { wantUsage(t, u, -1, -1, 2, -1) }},
				{FormatCodex, lines(`{"type":"thread.started","thread_id":"t"}`,
					`{"type":"turn.completed","usage":{"input_tokens":9,"cached_input_tokens":`+bad+`,"output_tokens":1}}`),
					func(u Usage) { wantUsage(t, u, -1, 1, -1, -1) }},
				{FormatGemini, lines(`{"type":"init","session_id":"s","model":"m"}`,
					`{"type":"result","status":"success","stats":{"input_tokens":`+bad+`,"output_tokens":3,"cached":`+bad+`}}`),
					func(u Usage) { wantUsage(t, u, -1, 3, -1, -1) }},
				{FormatOpencode, lines(
					`{"type":"step_finish","part":{"type":"step-finish","cost":`+bad+`,"tokens":{"input":`+bad+`,"output":1}}}`,
					`{"type":"step_finish","part":{"type":"step-finish","cost":0.25,"tokens":{"input":6,"output":2}}}`),
					func(u Usage) {
						wantUsage(t, u, 6, 3, -1, -1)
						if costOK {
							wantCost(t, u.CostUSD, 10.75)
						} else {
							wantCost(t, u.CostUSD, 0.25)
						}
					}},
				{FormatCopilot, lines(
					`{"type":"assistant.message","data":{"messageId":"a","content":"x","outputTokens":`+bad+`}}`,
					`{"type":"assistant.message","data":{"messageId":"b","content":"y","outputTokens":7}}`),
					func(u Usage) { wantUsage(t, u, -1, 7, -1, -1) }},
			} {
				res := parseString(t, tc.in, tc.format)
				tc.check(res.Usage)
				if len(res.Ignored) == 0 || !strings.Contains(strings.Join(res.Ignored, "; "), "tokens") {
					t.Errorf("%s: ignored %q, want the bad figure named", tc.format, res.Ignored)
				}
			}
		})
	}
}

func noCost(t *testing.T, u Usage) {
	t.Helper()
	if u.CostUSD != nil {
		t.Errorf("cost %v, want unknown", *u.CostUSD)
	}
}

// Whole numbers written as floats are those numbers; -0 is 0, never
// printed as "-0".
func TestUsageFiguresWholeFloats(t *testing.T) {
	res := parseString(t, lines(`{"type":"result","subtype":"success","result":"ok","session_id":"s","total_cost_usd":-0,"usage":{"input_tokens":1e3,"output_tokens":12.0,"cache_read_input_tokens":-0}}`), FormatClaude)
	wantUsage(t, res.Usage, 1000, 12, 0, -1)
	if c := res.CostUSD; c == nil || *c != 0 || 1 / *c < 0 {
		t.Errorf("cost %v, want 0", c)
	}
	if len(res.Ignored) != 0 {
		t.Errorf("ignored %q", res.Ignored)
	}
}

// The usage file's figures are read as the parsers read theirs, past a
// byte-order mark: it was refused whole ("invalid character 'ï'"), 1e3
// was "not a JSON object of token counts" and a cost of -0 was recorded
// as -0.
func TestUsageFileFigures(t *testing.T) {
	path := filepath.Join(t.TempDir(), "usage.json")
	if err := os.WriteFile(path, []byte("\ufeff"+`{"input_tokens":1e3,"output_tokens":1e400,"cost_usd":-0}`+"\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var u Usage
	if err := ApplyUsageFile(path, &u); err != nil {
		t.Fatal(err)
	}
	u.Range()
	wantUsage(t, u, 1000, -1, -1, -1)
	if c := u.CostUSD; c == nil || *c != 0 || math.Signbit(*c) {
		t.Errorf("cost %v, want 0", c)
	}
	if len(u.Ignored) != 1 {
		t.Errorf("ignored %q, want output_tokens", u.Ignored)
	}
}

// opencode prints each step's cost and the step's cost is their sum: in
// float64 $0.1 + $0.2 made $0.30000000000000004 in the step record and the
// views; a sum is to the nano-dollar, as the run's total is.
func TestStepCostKeepsNoFloatNoise(t *testing.T) {
	res := parseString(t, lines(
		`{"type":"step_finish","part":{"type":"step-finish","cost":0.1,"tokens":{"input":1,"output":1}}}`,
		`{"type":"step_finish","part":{"type":"step-finish","cost":0.2,"tokens":{"input":1,"output":1}}}`), FormatOpencode)
	if c := res.Usage.CostUSD; c == nil || *c != 0.3 {
		t.Fatalf("0.1 + 0.2 = %v, want 0.3", *c)
	}
}
