package agent

import (
	"strings"
	"testing"
)

func TestTextFallback(t *testing.T) {
	res := parseString(t, "Working...\n\nAll tests pass.\n<promise>COMPLETE</promise>\n\n", FormatAuto)
	if res.Format != FormatText || res.FinalMessage != "Working...\n\nAll tests pass.\n<promise>COMPLETE</promise>" {
		t.Fatalf("format %q final %q", res.Format, res.FinalMessage)
	}
	wantUsage(t, res.Usage, -1, -1, -1, -1)
	if res.CostUSD != nil || len(res.ToolCalls) != 0 || res.ToolCalls == nil {
		t.Errorf("cost %v calls %v", res.CostUSD, res.ToolCalls)
	}
}

// A long text keeps whole last lines within FinalMessageChars characters.
func TestTextKeepsWholeLastLines(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 20000; i++ {
		b.WriteString("line é of output number ...\n")
	}
	b.WriteString("last\n")
	res := parseString(t, b.String(), FormatText)
	n := len([]rune(res.FinalMessage))
	if n > 2000 || n < 1900 || !strings.HasPrefix(res.FinalMessage, "line é") || !strings.HasSuffix(res.FinalMessage, "\nlast") {
		t.Errorf("final message: %d chars, %q...", n, res.FinalMessage[:40])
	}
}

func TestDetect(t *testing.T) {
	for in, want := range map[string]string{
		"":                                   FormatText,
		"hello\nworld\n":                     FormatText,
		`{"type":"something"}` + "\n":        FormatText,
		"banner\n" + ccInit + "\n":           FormatClaude,
		"  [\n  {\"type\": \"system\"}\n]\n": FormatClaude,
		`{"type":"thread.started","thread_id":"x"}` + "\n":                                        FormatCodex,
		`{"type":"result","subtype":"success","result":"` + strings.Repeat("z", peekBytes) + `"}`: FormatClaude,
		`[{"type":"system","subtype":"init","session_id":"s"}]` + "\n":                            FormatClaude,
		// a text agent's line that starts with a bracket is no JSON array:
		// read as Claude's, the output lost its final message
		"[x] fixed the bug\ndone\n":                  FormatText,
		"Running\n[INFO] 3 tests passed\nall good\n": FormatText,
		"[2026-11-27 08:00] started\n":               FormatText,
	} {
		if got := parseString(t, in, FormatAuto).Format; got != want {
			t.Errorf("detect %.40q: %s, want %s", in, got, want)
		}
	}
}
