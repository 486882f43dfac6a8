package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// peekBytes is how much of the stream format detection looks at.
const peekBytes = 256 << 10

// maxDetectLines bounds how many lines detection reads past banners.
const maxDetectLines = 200

// typePrefix reads the type of a JSON line too long to decode here (the
// CLIs print "type" as the first key), and a subtype that comes right
// after it. By hand what ^\{\s*"type"\s*:\s*"([^"\\]{1,64})"(?:\s*,\s*
// "subtype"\s*:\s*"([^"\\]{1,64})")? matches: compiling that took every
// loop-step about half a millisecond (TestTypePrefixAsThePattern).
func typePrefix(b []byte) (typ, subtype []byte, ok bool) {
	if b, ok = after(b, "{"); !ok {
		return nil, nil, false
	}
	if b, ok = after(skipSpace(b), `"type"`); !ok {
		return nil, nil, false
	}
	if b, ok = after(skipSpace(b), ":"); !ok {
		return nil, nil, false
	}
	if typ, b, ok = shortString(skipSpace(b)); !ok {
		return nil, nil, false
	}
	if b, ok := after(skipSpace(b), ","); ok {
		if b, ok = after(skipSpace(b), `"subtype"`); ok {
			if b, ok = after(skipSpace(b), ":"); ok {
				subtype, _, _ = shortString(skipSpace(b))
			}
		}
	}
	return typ, subtype, true
}

// after is b past prefix, when b starts with it.
func after(b []byte, prefix string) ([]byte, bool) {
	if len(b) < len(prefix) || string(b[:len(prefix)]) != prefix {
		return b, false
	}
	return b[len(prefix):], true
}

// skipSpace is b past the spaces \s stands for.
// arrayLine says whether a line (trimmed) opens a JSON array of objects:
// a bracket alone, or one before an object.
func arrayLine(ln []byte) bool {
	if len(ln) == 0 || ln[0] != '[' {
		return false
	}
	rest := skipSpace(ln[1:])
	return len(rest) == 0 || rest[0] == '{'
}

func skipSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\f' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}

// shortString reads "VALUE": 1 to 64 runes (an invalid byte is one), no
// quote or backslash among them.
func shortString(b []byte) (val, rest []byte, ok bool) {
	if len(b) == 0 || b[0] != '"' {
		return nil, b, false
	}
	i := 1
	for n := 0; i < len(b) && b[i] != '"'; n++ {
		if b[i] == '\\' || n == 64 {
			return nil, b, false
		}
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
	if i == 1 || i == len(b) {
		return nil, b, false
	}
	return b[1:i], b[i+1:], true
}

// detectHead is what detection reads of one JSON line: enough to tell the
// formats apart by what only one of them has, never by a shared type name.
type detectHead struct {
	Type         string          `json:"type"`
	Subtype      string          `json:"subtype"`
	SessionID    *string         `json:"session_id"`
	SessionIDoc  *string         `json:"sessionID"` // opencode
	TotalCostUSD *float64        `json:"total_cost_usd"`
	CostUSD      *float64        `json:"cost_usd"`
	Model        *string         `json:"model"`
	Message      json.RawMessage `json:"message"`
	Stats        json.RawMessage `json:"stats"`
	Part         json.RawMessage `json:"part"`
	Data         json.RawMessage `json:"data"`
	Response     json.RawMessage `json:"response"`
	ToolCall     json.RawMessage `json:"tool_call"` // cursor
	Role         string          `json:"role"`
	Error        json.RawMessage `json:"error"`
	Msg          json.RawMessage `json:"msg"` // codex before thread.started
}

// claudeLike is a format that prints Claude Code's events: the agent
// binary's name tells which agent printed them.
func claudeLike(binary string) string {
	switch b := strings.ToLower(filepath.Base(binary)); {
	case b == "cursor-agent" || b == "cursor":
		return FormatCursor
	case b == "amp":
		return FormatAmp
	}
	return FormatClaude
}

// classifyHead names the format one JSON line belongs to, "" when the line
// could be several formats' (a bare error, an unknown type).
func classifyHead(h *detectHead, binary string) string {
	t := h.Type
	switch {
	case strings.HasPrefix(t, "thread.") || strings.HasPrefix(t, "turn.") || strings.HasPrefix(t, "item."):
		return FormatCodex
	case t == "" && len(h.Msg) > 0 && h.Msg[0] == '{':
		return FormatCodex // {"id":"0","msg":{"type":…}}: the older codex exec --json
	case len(h.Part) > 0 && (t == "step_start" || t == "step_finish" || t == "text" || t == "tool_use" || t == "reasoning"):
		return FormatOpencode
	case t == "error" && h.SessionIDoc != nil:
		return FormatOpencode
	case len(h.Data) > 0 && (strings.HasPrefix(t, "session.") || strings.HasPrefix(t, "assistant.") || strings.HasPrefix(t, "tool.") || strings.HasPrefix(t, "user.")):
		return FormatCopilot
	case t == "init" && h.Model != nil:
		return FormatGemini
	case t == "result" && len(h.Stats) > 0:
		return FormatGemini
	case t == "message" && h.Role != "":
		return FormatGemini
	case t == "" && len(h.Response) > 0 && len(h.Stats) > 0:
		return FormatGemini // --output-format json: one object
	case t == "" && h.SessionID != nil && len(h.Error) > 0 && h.Error[0] == '{':
		return FormatGemini // --output-format json after a failure
	case t == "tool_call" && len(h.ToolCall) > 0:
		return FormatCursor
	case t == "system" && h.Subtype == "init":
		return claudeLike(binary)
	case t == "result" && (h.Subtype != "" || h.SessionID != nil || h.TotalCostUSD != nil || h.CostUSD != nil):
		return claudeLike(binary)
	case (t == "assistant" || t == "user") && anthropicMessage(h.Message):
		return claudeLike(binary)
	}
	return ""
}

// anthropicMessage reports whether raw is an Anthropic-style message: an
// object with a role and a content.
func anthropicMessage(raw json.RawMessage) bool {
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	var m struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	return json.Unmarshal(raw, &m) == nil && m.Role != "" && len(m.Content) > 0
}

// Detect names the format of the stream behind r, without consuming it.
func Detect(r *bufio.Reader) string { return DetectBinary(r, "") }

// DetectBinary names the format of the stream behind r from what only one
// format has, without consuming anything; binary (the agent program) decides
// between look-alikes. When nothing is sure, it is text, which keeps at
// least the final message.
func DetectBinary(r *bufio.Reader, binary string) string {
	window, _ := r.Peek(peekBytes)
	for i := 0; i < maxDetectLines && len(window) > 0; i++ {
		ln, rest, complete := bytes.Cut(window, []byte{'\n'})
		window = rest
		ln = bytes.TrimSpace(ln)
		if len(ln) == 0 {
			continue
		}
		switch ln[0] {
		case '[':
			// --output-format json --verbose: an array of Claude messages,
			// on one line or pretty-printed; a text line that starts with
			// a bracket ("[x] done", "[INFO] ...") is none
			if arrayLine(ln) {
				return claudeLike(binary)
			}
			continue
		case '{':
		default:
			continue
		}
		var h detectHead
		if (complete || ln[len(ln)-1] == '}') && decodeLoose(ln, &h) == nil {
			if f := classifyHead(&h, binary); f != "" {
				return f
			}
			continue
		}
		if i == 0 || !complete || len(ln) == 1 {
			// A pretty-printed object (Gemini --output-format json) or a
			// line longer than the window: read its type if it leads.
			if f := detectPretty(r, binary); f != "" {
				return f
			}
		}
		if typ, subtype, ok := typePrefix(ln); ok {
			h := detectHead{Type: string(typ), Subtype: string(subtype)}
			if h.Type == "result" && h.Subtype != "" {
				// Too long to see its session_id: Claude's result
				// leads with its subtype, Gemini's has none.
				return claudeLike(binary)
			}
			if f := classifyHead(&h, binary); f != "" {
				return f
			}
		}
	}
	return FormatText
}

// detectPretty decodes the first JSON value of the window when it spans
// lines: Gemini CLI's --output-format json prints one indented object.
func detectPretty(r *bufio.Reader, binary string) string {
	window, _ := r.Peek(peekBytes)
	i := bytes.IndexByte(window, '{')
	if i < 0 {
		return ""
	}
	var h detectHead
	dec := json.NewDecoder(bytes.NewReader(window[i:]))
	if err := dec.Decode(&h); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			if geminiJSONHead(window[i:]) {
				return FormatGemini
			}
			return ""
		}
	}
	return classifyHead(&h, binary)
}

// geminiJSONHead says whether b opens Gemini CLI's --output-format json
// object, whose response can run past the window and hide the stats after
// it: an optional session_id, then a response string, as the CLI orders them.
func geminiJSONHead(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for {
		k, err := dec.Token()
		if err != nil {
			return false
		}
		switch k {
		case "session_id":
			if v, err := dec.Token(); err != nil {
				return false
			} else if _, ok := v.(string); !ok {
				return false
			}
		case "response":
			// the key's colon is still unread: Token takes it with the value
			rest, ok := after(skipSpace(b[dec.InputOffset():]), ":")
			rest = skipSpace(rest)
			return ok && len(rest) > 0 && rest[0] == '"'
		default:
			return false
		}
	}
}

// lazyRegexp compiles a pattern on its first use: loop-drive and
// loop-record never need the agents' patterns, and compiling them all took
// every command that links this package about a millisecond at start.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
