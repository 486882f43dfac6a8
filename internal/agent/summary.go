package agent

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/loopkit/loopkit/internal/record"
)

// Tool arguments and results can be megabytes (a Write of a whole file, a
// test log); only their first 200 characters are kept. These types decode
// such values straight from the line's bytes into their summary, so a
// 10 MB value is never copied or unescaped whole.

// argsSummary is a tool's arguments as summary text (compact JSON).
type argsSummary string

func (a *argsSummary) UnmarshalJSON(data []byte) error {
	*a = argsSummary(compactJSON(data))
	return nil
}

// resultSummary is a tool's result as summary text: a string, the text of
// an array of content blocks, an object's "content", else compact JSON.
type resultSummary string

func (r *resultSummary) UnmarshalJSON(data []byte) error {
	*r = resultSummary(textOf(data))
	return nil
}

// headString is a JSON string kept only as far as a summary needs.
type headString string

func (h *headString) UnmarshalJSON(data []byte) error {
	*h = headString(headOfString(data))
	return nil
}

// headBytes is more than enough JSON for a 200-character summary (a
// character takes at most 12 bytes escaped, a surrogate pair).
const headBytes = 16 * record.SummaryChars

// headOfString unquotes the start of a JSON string literal: the whole
// string, or its first SummaryChars+1 characters (at most headBytes),
// cut on an escape boundary; a non-string value gives "". Only what a
// summary keeps is unescaped.
func headOfString(data []byte) string {
	if len(data) == 0 || data[0] != '"' {
		var s string
		json.Unmarshal(data, &s)
		return s
	}
	i, chars := 1, 0
	for i < len(data) && i < headBytes && chars <= record.SummaryChars {
		switch c := data[i]; {
		case c == '"':
			return unquote(data[:i+1])
		case c == '\\' && i+1 < len(data) && data[i+1] == 'u':
			// a high surrogate and its low one are one character: the
			// low one counts
			high := i+3 < len(data) && (data[i+2] == 'd' || data[i+2] == 'D') && bytes.IndexByte([]byte("89abAB"), data[i+3]) >= 0
			if !high {
				chars++
			}
			i += 6
		case c == '\\':
			chars++
			i += 2
		default:
			if utf8.RuneStart(c) {
				chars++
			}
			i++
		}
	}
	i = min(i, len(data)) // a malformed escape at the very end
	return unquote(append(append(make([]byte, 0, i+1), data[:i]...), '"'))
}

func unquote(lit []byte) string {
	var s string
	json.Unmarshal(lit, &s) // invalid UTF-8 at the cut becomes U+FFFD
	return s
}

// compactJSON renders a JSON value on one line for an arguments summary; a
// string value is shown as its text.
func compactJSON(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return ""
	}
	if raw[0] == '"' {
		return headOfString(raw)
	}
	if len(raw) <= headBytes {
		var b bytes.Buffer
		if json.Compact(&b, raw) == nil {
			return record.Text(b.Bytes())
		}
	}
	head := raw
	if len(head) > headBytes {
		head = head[:headBytes]
	}
	// a summary keeps SummaryChars characters: as many 4-byte ones are
	// enough when they are whole (else squeeze it all, as before)
	out := squeeze(head, 4*(record.SummaryChars+1))
	if !utf8.Valid(out) {
		out = squeeze(head, len(head))
	}
	return record.Text(out)
}

// squeeze drops insignificant whitespace outside strings from a JSON
// prefix, stopping once it has max bytes.
func squeeze(b []byte, max int) []byte {
	out := make([]byte, 0, min(len(b), max))
	inStr, esc := false, false
	for _, c := range b {
		if len(out) >= max {
			break
		}
		switch {
		case inStr:
			out = append(out, c)
			if esc {
				esc = false
			} else if c == '\\' {
				esc = true
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
			out = append(out, c)
		case c == ' ' || c == '\n' || c == '\t' || c == '\r':
		default:
			out = append(out, c)
		}
	}
	return out
}

// textOf renders tool result content: a string, or an array of content
// blocks whose text parts are joined (images and others named by type), or
// an object's "content" (MCP results).
func textOf(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		return headOfString(raw)
	case '[':
		var blocks []struct {
			Type string     `json:"type"`
			Text headString `json:"text"`
		}
		if json.Unmarshal(raw, &blocks) != nil {
			return compactJSON(raw)
		}
		var b strings.Builder
		for i, bl := range blocks {
			if b.Len() > headBytes {
				break
			}
			if i > 0 {
				b.WriteByte('\n')
			}
			if bl.Type == "text" || bl.Text != "" {
				b.WriteString(string(bl.Text))
			} else if bl.Type != "" {
				b.WriteString("[" + bl.Type + "]")
			}
		}
		return b.String()
	case '{':
		var obj struct {
			Content *resultSummary `json:"content"`
		}
		if json.Unmarshal(raw, &obj) == nil && obj.Content != nil {
			return string(*obj.Content)
		}
	}
	return compactJSON(raw)
}
