package agent

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// Long values are summarized from their head only; the result must be what
// decoding the whole value and keeping 200 characters gives.
func TestSummariesOfLongValues(t *testing.T) {
	for _, body := range []string{
		strings.Repeat("a", 5000),
		strings.Repeat("é\n\"q\"\t", 2000),
		strings.Repeat("😀", 3000), // surrogate pairs when escaped
		"x" + strings.Repeat("\\", 4000),
	} {
		for name, lit := range map[string][]byte{"raw": mustJSON(t, body), "ascii-escaped": asciiJSON(body)} {
			want := summary(body)
			if got := summary(headOfString(lit)); got != want {
				t.Errorf("%s %.20q: head %q, want %q", name, body, got, want)
			}
			args := []byte(`{"content":` + string(lit) + `}`)
			if got := summary(compactJSON(args)); !strings.HasPrefix(`{"content":`+string(lit), got) || utf8.RuneCountInString(got) != 200 {
				t.Errorf("%s args summary %q", name, got)
			}
			if got := summary(textOf([]byte(`[{"type":"text","text":` + string(lit) + `}]`))); got != want {
				t.Errorf("%s blocks summary %q, want %q", name, got, want)
			}
		}
	}
}

func mustJSON(t *testing.T, s string) []byte {
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// asciiJSON escapes every non-ASCII character as \uXXXX, as Python's
// json.dumps does (the samples are written so).
func asciiJSON(s string) []byte {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80:
			b.WriteRune(r)
		case r > 0xffff:
			r -= 0x10000
			b.WriteString(`\u` + hex4(0xd800+(r>>10)) + `\u` + hex4(0xdc00+(r&0x3ff)))
		default:
			b.WriteString(`\u` + hex4(r))
		}
	}
	b.WriteByte('"')
	return []byte(b.String())
}

func hex4(r rune) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[r>>12&15], digits[r>>8&15], digits[r>>4&15], digits[r&15]})
}

// A tool's name is the agent's text: kept to its first 200 characters as
// the summaries are (docs/records.md), so that no view or trace carries a
// megabyte-long name (it went whole into gen_ai.tool.name and span names).
func TestToolNameCut(t *testing.T) {
	long := strings.Repeat("T", 300000)
	var c calls
	c.use("t1", long, "{}", false)
	c.result("t2", "x", false, false)
	c.use("t2", long, "{}", false)
	for _, tc := range c.all() {
		if tc.ToolName != strings.Repeat("T", 200) {
			t.Errorf("tool name of %d characters, want 200", utf8.RuneCountInString(tc.ToolName))
		}
	}
}

// The model and session id the stream names are kept to 200 characters too.
func TestStreamNamesCut(t *testing.T) {
	long := strings.Repeat("M", 300000)
	in := `{"type":"system","subtype":"init","session_id":"` + long + `","model":"` + long + `"}` + "\n"
	res, err := Parse(strings.NewReader(in), FormatClaude, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Model) != 200 || len(res.SessionID) != 200 {
		t.Errorf("model of %d and session id of %d characters, want 200", len(res.Model), len(res.SessionID))
	}
}
