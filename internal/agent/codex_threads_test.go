package agent

import "testing"

// Codex's turn.completed usage is the thread's running total
// (codex-rs/exec/src/event_processor_with_jsonl_output.rs,
// usage_from_last_total). The figures are those of a live probe of codex-cli
// 0.142.4, turns on one thread: input 16504 then 85681, output 20 then 40
// (github.com/gitmoot/gitmoot/issues/661).
func TestCodexThreadUsageIsARunningTotal(t *testing.T) {
	const tid = `019a2d7a-41c4-78b1-b7cc-a45d62a89cd5`
	started := `{"type":"thread.started","thread_id":"` + tid + `"}`
	for _, tc := range []struct {
		name     string
		in       []string
		inT, out int64
	}{
		{"exec then exec resume of the same thread: the last total",
			[]string{started, `{"type":"turn.started"}`,
				`{"type":"turn.completed","usage":{"input_tokens":16504,"cached_input_tokens":0,"output_tokens":20}}`,
				started, `{"type":"turn.started"}`,
				`{"type":"turn.completed","usage":{"input_tokens":85681,"cached_input_tokens":0,"output_tokens":40}}`},
			85681, 40},
		{"two threads add up",
			[]string{started,
				`{"type":"turn.completed","usage":{"input_tokens":16504,"cached_input_tokens":0,"output_tokens":20}}`,
				`{"type":"thread.started","thread_id":"019a2d7a-0000-78b1-b7cc-a45d62a89cd6"}`,
				`{"type":"turn.completed","usage":{"input_tokens":100,"cached_input_tokens":0,"output_tokens":5}}`},
			16604, 25},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := parseString(t, lines(tc.in...), FormatCodex)
			wantUsage(t, res.Usage, tc.inT, tc.out, 0, -1)
			if res.SessionID != tid {
				t.Errorf("session %q", res.SessionID)
			}
		})
	}
}

// A model the account may not use: Codex quotes the API's 400 body in its
// error and turn.failed (openai/codex#17642; pingdotgg/t3code#829), or,
// before, "unexpected status 400 Bad Request" (openai/codex#6603).
func TestCodexQuoted400IsInvalidRequest(t *testing.T) {
	body := `{\"type\":\"error\",\"status\":400,\"error\":{\"type\":\"invalid_request_error\",\"message\":\"The 'gpt-5.3-codex-spark' model is not supported when using Codex with a ChatGPT account.\"}}`
	for _, in := range []string{
		lines(`{"type":"thread.started","thread_id":"01a0009e-f7b4-7622-9f79-bbf2ebb90bb1"}`, `{"type":"turn.started"}`,
			`{"type":"error","message":"`+body+`"}`, `{"type":"turn.failed","error":{"message":"`+body+`"}}`),
		lines(`{"type":"thread.started","thread_id":"t"}`,
			`{"type":"turn.failed","error":{"message":"unexpected status 400 Bad Request: {\"detail\":\"The 'gpt-5.1-codex' model is not supported when using Codex with a ChatGPT account.\"}"}}`),
	} {
		res := parseString(t, in, FormatCodex)
		if res.ErrorKind != "invalid_request" || len(res.Errors) != 1 {
			t.Errorf("kind %q errors %q", res.ErrorKind, res.Errors)
		}
	}
}
