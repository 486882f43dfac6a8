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
