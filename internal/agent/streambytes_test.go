package agent

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// A line that starts with a bracket is no JSON array of messages unless
// one follows ("[dotenv@17.2.1] injecting env" is on stdout of any node
// CLI that loads dotenv): taking it for one lost every line after it,
// the result's tokens and cost, and made the step "exit status 0 without
// the stream's result line".
func TestClaudeBracketLineIsNoArray(t *testing.T) {
	for name, in := range map[string]string{
		"before the stream": lines("[dotenv@17.2.1] injecting env (0) from .env", ccInit, ccUseA2, ccResult),
		"inside the stream": lines(ccInit, ccUseA2, "[1,2", ccResult),
		"an array before":   lines("["+ccUseA2+"]", ccInit, ccResult),
	} {
		t.Run(name, func(t *testing.T) {
			res := parseString(t, in, FormatClaude)
			wantUsage(t, res.Usage, 10, 70, 3310, 160)
			wantCost(t, res.CostUSD, 0.5)
			if res.Unfinished != "" || !strings.Contains(res.FinalMessage, "Fixed Add.") {
				t.Errorf("unfinished %q, final message %q", res.Unfinished, res.FinalMessage)
			}
		})
	}
}

// An element of the array past MaxLineBytes is skipped as a line that long
// is: the decoder would hold it whole (a 200 MB tool result took 466 MB).
// The messages on the lines after it still count.
func TestClaudeArrayLongElement(t *testing.T) {
	big := `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result","content":"` +
		strings.Repeat("x", MaxLineBytes+1<<20) + `"}]},"session_id":"s-1"},`
	in := "[\n" + ccInit + ",\n" + big + "\n" + ccResult + "\n]\n"
	var why []string
	res, err := Parse(strings.NewReader(in), FormatClaude, func(msg any, kv ...any) {
		why = append(why, fmt.Sprint(kv[1], " ", kv[3]))
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(why) == 0 || !strings.HasPrefix(why[0], "3 JSON array element longer than") {
		t.Errorf("warnings %q, want the element longer than %d bytes", why, MaxLineBytes)
	}
	wantUsage(t, res.Usage, 10, 70, 3310, 160)
	wantCost(t, res.CostUSD, 0.5)
}

// A byte-order mark before the first line made that line "not JSON": a
// stream whose first line was its result lost its tokens and cost, and
// Codex's first line names the session.
func TestStreamAfterByteOrderMark(t *testing.T) {
	for _, format := range []string{FormatAuto, FormatClaude} {
		res := parseString(t, "\ufeff"+lines(ccResult), format)
		wantUsage(t, res.Usage, 10, 70, 3310, 160)
		wantCost(t, res.CostUSD, 0.5)
		if res.Skipped != 0 || res.Format != FormatClaude {
			t.Errorf("%s: format %q, %d lines skipped", format, res.Format, res.Skipped)
		}
	}
	res := parseString(t, "\ufeff"+lines(`{"type":"thread.started","thread_id":"t-1"}`, `{"type":"turn.completed","usage":{"input_tokens":5,"output_tokens":1}}`), FormatAuto)
	if res.Format != FormatCodex || res.SessionID != "t-1" || res.Skipped != 0 {
		t.Errorf("format %q session %q skipped %d", res.Format, res.SessionID, res.Skipped)
	}
}

// Arrays one after another (a wrapper running `claude -p --output-format
// json --verbose` per task) each cost what their bytes do: no reader per
// array, no layers of them.
func TestClaudeManyArrays(t *testing.T) {
	var b strings.Builder
	for range 2000 {
		b.WriteString(`[{"type":"system","subtype":"status"}]` + "\n")
	}
	b.WriteString("[\n" + ccInit + ",\n" + ccResult + "\n] trailing words\nnot json\n")
	var skipped []any
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := Parse(strings.NewReader(b.String()), FormatClaude, func(msg any, kv ...any) { skipped = append(skipped, kv[1]) })
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	wantUsage(t, res.Usage, 10, 70, 3310, 160)
	// the words after the array are line 2004, the next line 2005
	if fmt.Sprint(skipped) != "[2004 2005]" {
		t.Errorf("lines skipped %v, want [2004 2005]", skipped)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("%d MiB allocated for 2000 short arrays", got>>20)
	}
}

// Gemini's --output-format json is one pretty-printed object, which the
// decoder held whole: a 200 MB response took 857 MB. One past
// MaxLineBytes is skipped as a line that long is.
func TestGeminiPrettyObjectBounded(t *testing.T) {
	in := "{\n  \"response\": \"" + strings.Repeat("x", MaxLineBytes+1<<20) + "\",\n  \"stats\": {}\n}\n"
	var why []string
	if _, err := Parse(strings.NewReader(in), FormatGemini, func(msg any, kv ...any) { why = append(why, fmt.Sprint(kv[3])) }); err != nil {
		t.Fatal(err)
	}
	if len(why) != 1 || !strings.HasPrefix(why[0], "JSON object longer than") {
		t.Errorf("warnings %q", why)
	}
}
