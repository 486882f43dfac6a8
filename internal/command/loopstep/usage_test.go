package loopstep

import (
	"testing"
)

// An agent that prints only text but writes $LOOP_USAGE_FILE has its usage
// recorded, and the cost it gives is "reported".
func TestUsageFile(t *testing.T) {
	c := newCase(t)
	script := c.write("agent.sh", "#!/bin/sh\necho done\nprintf '%s' '{\"input_tokens\":10,\"output_tokens\":20,\"cache_read_tokens\":30,\"cache_creation_tokens\":40,\"cost_usd\":0.5}' > \"$LOOP_USAGE_FILE\"\n")
	chmodX(t, script)
	for _, noStore := range []bool{false, true} {
		args := []string{"--prompt", c.dir + "/prompt.md"}
		if noStore {
			args = append(args, "--no-store")
		}
		rec, _, _ := c.run("", append(args, "--", script)...)
		if rec.LLMInputTokens == nil || *rec.LLMInputTokens != 10 || *rec.LLMOutputTokens != 20 || *rec.LLMCacheReadTokens != 30 || *rec.LLMCacheCreationTokens != 40 ||
			rec.CostUSD == nil || *rec.CostUSD != 0.5 || str(rec.CostSource) != "reported" || rec.Format != "text" {
			t.Errorf("no-store %v: %+v", noStore, rec)
		}
	}
}

// With --prices, a step whose agent reports tokens but no cost gets an
// estimate from the table, by the model the stream names; without a table
// or a known model nothing is made up.
func TestPricesEstimate(t *testing.T) {
	c := newCase(t)
	prices := c.write("prices.json", `{"gpt-5": {"input": 1.25, "output": 10, "cache_read": 0.125, "cache_creation": 0}}`)
	t.Setenv("FAKE_SAY", `{"type":"thread.started","thread_id":"t"}`+"\n"+`{"type":"turn.completed","usage":{"input_tokens":1000000,"cached_input_tokens":400000,"output_tokens":100000}}`)
	rec, _, _ := c.run("", "--prompt", c.dir+"/prompt.md", "--prices", prices, "--", fakeAgent)
	if rec.CostUSD != nil || str(rec.CostSource) != "unknown" {
		t.Errorf("codex names no model: cost %v source %s", rec.CostUSD, str(rec.CostSource))
	}
	t.Setenv("FAKE_SAY", `{"type":"system","subtype":"init","session_id":"s","model":"gpt-5-codex"}`+"\n"+
		`{"type":"assistant","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":600000,"output_tokens":100000,"cache_read_input_tokens":400000,"cache_creation_input_tokens":0}},"session_id":"s"}`)
	rec, _, _ = c.run("", "--prompt", c.dir+"/prompt.md", "--prices", prices, "--", fakeAgent)
	// 0.6 M × 1.25 + 0.1 M × 10 + 0.4 M × 0.125 = 0.75 + 1 + 0.05
	if rec.CostUSD == nil || *rec.CostUSD < 1.7999 || *rec.CostUSD > 1.8001 || str(rec.CostSource) != "estimated" {
		t.Errorf("cost %v source %s", rec.CostUSD, str(rec.CostSource))
	}
	rec, _, _ = c.run("", "--prompt", c.dir+"/prompt.md", "--", fakeAgent)
	if rec.CostUSD != nil || str(rec.CostSource) != "unknown" {
		t.Errorf("without --prices: cost %v source %s", rec.CostUSD, str(rec.CostSource))
	}
}
