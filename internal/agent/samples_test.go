package agent

import (
	"os"
	"path/filepath"
	"testing"
)

// samplesDir holds real agent CLI outputs, copied unchanged from
// the public agent CLIs (testdata/agent-samples/README says from where).
const samplesDir = "../../testdata/agent-samples"

func parseFile(t *testing.T, name, format string) *Result {
	t.Helper()
	return parsePath(t, filepath.Join(samplesDir, name), format)
}

// parsePath parses the agent output in file path.
func parsePath(t *testing.T, path, format string) *Result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := Parse(f, format, testWarner(t))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestClaudeStreamJSONSample(t *testing.T) {
	for _, format := range []string{FormatAuto, FormatClaude} {
		res := parseFile(t, "claude-stream-json-bash.ndjson", format)
		if res.Format != FormatClaude {
			t.Fatalf("format %q", res.Format)
		}
		wantUsage(t, res.Usage, 7, 141, 49191, 13238)
		wantCost(t, res.CostUSD, 0.110893)
		if res.FinalMessage != "Listed contents of the working directory." {
			t.Errorf("final message %q", res.FinalMessage)
		}
		if res.SessionID != "7465fcb4-e532-4ef6-9754-4f9b0ace9d16" {
			t.Errorf("session %q", res.SessionID)
		}
		if len(res.ToolCalls) != 1 {
			t.Fatalf("tool calls %+v", res.ToolCalls)
		}
		tc := res.ToolCalls[0]
		if tc.ToolName != "Bash" || tc.ArgumentsSummary != `{"command":"ls -la","description":"List files in current directory"}` || tc.IsError || tc.Subagent {
			t.Errorf("tool call %+v", tc)
		}
		if want := "total 8\ndrwxr-xr-x@ 8 user  staff  256 May 10 16:59 .\n"; tc.ResultSummary[:len(want)] != want || len([]rune(tc.ResultSummary)) != 200 {
			t.Errorf("result summary %q", tc.ResultSummary)
		}
		if res.Skipped != 0 || len(res.Errors) != 0 {
			t.Errorf("skipped %d errors %v", res.Skipped, res.Errors)
		}
	}
}

func TestClaudeJSONResultSample(t *testing.T) {
	res := parseFile(t, "claude-json-result.json", FormatAuto)
	if res.Format != FormatClaude {
		t.Fatalf("format %q", res.Format)
	}
	// The result line's usage, not its modelUsage (38, 765, 28775, 31159):
	// the samples' README, the project's ground truth for these formats,
	// makes the result's usage and total_cost_usd the totals. Keep it so.
	wantUsage(t, res.Usage, 18, 424, 17254, 25067)
	wantCost(t, res.CostUSD, 0.24722425)
	if res.FinalMessage != "Here are the files in the current directory." {
		t.Errorf("final message %q", res.FinalMessage)
	}
	if res.SessionID != "40e7b02d-c0f9-4876-9010-f514d4eb0603" || len(res.ToolCalls) != 0 {
		t.Errorf("session %q calls %v", res.SessionID, res.ToolCalls)
	}
}

func TestCodexSample(t *testing.T) {
	res := parseFile(t, "codex-exec-json-command.jsonl", FormatAuto)
	if res.Format != FormatCodex {
		t.Fatalf("format %q", res.Format)
	}
	wantUsage(t, res.Usage, 967, 204, 5120, -1)
	if res.CostUSD != nil {
		t.Errorf("cost %v, want unknown", *res.CostUSD)
	}
	if res.SessionID != "019a2d7b-231d-7290-acc1-6bc6571440da" {
		t.Errorf("session %q", res.SessionID)
	}
	if want := "`test.js` simply contains `console.log('Hello World');`, so running it will print the string “Hello World” to the standard output."; res.FinalMessage != want {
		t.Errorf("final message %q", res.FinalMessage)
	}
	if len(res.ToolCalls) != 1 {
		t.Fatalf("tool calls %+v", res.ToolCalls)
	}
	tc := res.ToolCalls[0]
	if tc.ToolName != "command_execution" || tc.ArgumentsSummary != "bash -lc 'cat test.js'" || tc.ResultSummary != "console.log('Hello World');\n" || tc.IsError {
		t.Errorf("tool call %+v", tc)
	}
}

// wantUsage checks token figures; -1 means the figure must be unknown.
func wantUsage(t *testing.T, u Usage, in, out, cacheRead, cacheCreation int64) {
	t.Helper()
	for _, c := range []struct {
		name string
		got  *int64
		want int64
	}{{"input", u.InputTokens, in}, {"output", u.OutputTokens, out}, {"cache read", u.CacheReadTokens, cacheRead}, {"cache creation", u.CacheCreationTokens, cacheCreation}} {
		switch {
		case c.want < 0 && c.got != nil:
			t.Errorf("%s tokens %d, want unknown", c.name, *c.got)
		case c.want >= 0 && (c.got == nil || *c.got != c.want):
			t.Errorf("%s tokens %v, want %d", c.name, ptrStr(c.got), c.want)
		}
	}
}

func wantCost(t *testing.T, got *float64, want float64) {
	t.Helper()
	if got == nil || *got != want {
		t.Errorf("cost %v, want %v", got, want)
	}
}

func ptrStr(p *int64) any {
	if p == nil {
		return "unknown"
	}
	return *p
}

// testWarner logs parser warnings into the test's output.
func testWarner(t *testing.T) Warner {
	return func(msg any, kv ...any) { t.Log(append([]any{msg}, kv...)...) }
}
