package agent

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/loopkit/loopkit/internal/view/jsonobj"
)

// The fast path for Claude Code lines. A stream is mostly assistant and
// user messages whose bulk (tool inputs, results, text) ends up as
// 200-character summaries: decoding every line whole with encoding/json
// cost twice jq's CPU. scanClaude delimits the fields instead (strings
// are skipped with IndexByte), decodes only the small values the totals
// need, and summarises the big ones from their bytes. A line it cannot
// read exactly as encoding/json would (a kind it leaves to the decoder, a
// key in another case or escaped, a key twice, a value of an unexpected
// type, a syntax error) goes to decodeLoose as before.

var errDecoder = errors.New("left to the decoder")

// scanClaude fills m from line b and reports whether it could.
func scanClaude(b []byte, m *claudeMsg) bool {
	var v [7][]byte
	if !pick(b, lineKeys, v[:]) {
		return false
	}
	typ, sid, sub, model, errField, parent, msg := v[0], v[1], v[2], v[3], v[4], v[5], v[6]
	if typ == nil || !jsonobj.PlainString(typ) {
		return false
	}
	m.Type = string(typ[1 : len(typ)-1])
	switch m.Type {
	case "result", "rate_limit_event", "tool_call":
		return false // rare lines with many fields: the decoder reads them
	}
	ok := scanString(sid, &m.SessionID) && scanString(sub, &m.Subtype) &&
		scanString(model, &m.Model) && scanString(errField, &m.Error)
	if !ok {
		return false
	}
	if parent != nil && !isNull(parent) {
		var p string
		if !scanString(parent, &p) || parent[0] != '"' {
			return false
		}
		m.ParentToolUseID = &p
	}
	if msg != nil && !isNull(msg) {
		m.Message = &claudeMessage{}
		return scanMessage(msg, m.Message)
	}
	return true
}

// The keys read of a line, its message and a content block, as literals.
var (
	lineKeys    = []string{`"type"`, `"session_id"`, `"subtype"`, `"model"`, `"error"`, `"parent_tool_use_id"`, `"message"`}
	messageKeys = []string{`"id"`, `"model"`, `"usage"`, `"content"`}
	blockKeys   = []string{`"type"`, `"id"`, `"name"`, `"text"`, `"tool_use_id"`, `"input"`, `"content"`, `"is_error"`}
)

// pick delimits the fields of an object and keeps the raw values of the
// keys named (as string literals) in vals, by position; a key twice, or
// one json could take for a named one, declines the object.
func pick(raw []byte, names []string, vals [][]byte) bool {
	err := jsonobj.Fields(raw, func(key, v []byte) error {
		for i, n := range names {
			if string(key) == n {
				if vals[i] != nil {
					return errDecoder // json would keep the last, or merge objects
				}
				vals[i] = v
				return nil
			}
		}
		return otherKey(key, claudeKeys)
	})
	return err == nil
}

// claudeKeys are the fields of a line json would also match in another
// case ("Type"): such a line goes to the decoder.
var claudeKeys = []string{"type", "session_id", "subtype", "model", "error", "parent_tool_use_id", "message",
	"id", "content", "usage", "name", "input", "text", "tool_use_id", "is_error"}

// otherKey passes a key the scan does not read, unless json could take
// it for one it does (another case, escapes).
func otherKey(key []byte, known []string) error {
	if bytes.IndexByte(key, '\\') >= 0 {
		return errDecoder
	}
	k := key[1 : len(key)-1]
	for _, name := range known {
		if len(k) == len(name) && bytes.EqualFold(k, []byte(name)) {
			return errDecoder
		}
	}
	return nil
}

// scanString decodes a string field (absent or null: left ""); a value
// of another type is not read here.
func scanString(raw []byte, dst *string) bool {
	switch {
	case raw == nil || isNull(raw):
		return true
	case jsonobj.PlainString(raw):
		*dst = string(raw[1 : len(raw)-1])
		return true
	case raw[0] == '"':
		return json.Unmarshal(raw, dst) == nil
	}
	return false
}

func isNull(raw []byte) bool { return string(raw) == "null" }

func scanMessage(raw []byte, m *claudeMessage) bool {
	if raw[0] != '{' {
		return false
	}
	var v [4][]byte
	if !pick(raw, messageKeys, v[:]) {
		return false
	}
	id, model, usage, content := v[0], v[1], v[2], v[3]
	if !scanString(id, &m.ID) || !scanString(model, &m.Model) {
		return false
	}
	if usage != nil && !isNull(usage) {
		if usage[0] != '{' {
			return false
		}
		m.Usage = &claudeUsage{}
		if decodeLoose(usage, m.Usage) != nil {
			return false
		}
	}
	if content == nil || isNull(content) {
		return true
	}
	if content[0] != '[' {
		return false
	}
	m.Content = []claudeBlock{} // as json leaves an empty array
	err := jsonobj.Elements(content, func(v []byte) error {
		if v[0] != '{' {
			return errDecoder
		}
		m.Content = append(m.Content, claudeBlock{})
		if !scanBlock(v, &m.Content[len(m.Content)-1]) {
			return errDecoder
		}
		return nil
	})
	return err == nil
}

func scanBlock(raw []byte, b *claudeBlock) bool {
	var v [8][]byte
	if !pick(raw, blockKeys, v[:]) {
		return false
	}
	typ, id, name, text, useID, input, content, isErr := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
	if !scanString(typ, &b.Type) || !scanString(id, &b.ID) || !scanString(name, &b.Name) || !scanString(useID, &b.ToolUseID) {
		return false
	}
	switch {
	case text == nil || isNull(text):
	case text[0] == '"':
		b.textRaw = text // decoded only if it stays the last text
	default:
		return false
	}
	b.inputRaw, b.contentRaw = input, content
	switch {
	case isErr == nil || isNull(isErr) || string(isErr) == "false":
	case string(isErr) == "true":
		b.IsError = true
	default:
		return false
	}
	return true
}

// finalText is the last text block's text.
func (c *claude) finalText() string {
	if len(c.lastRaw) == 0 {
		return c.lastText
	}
	var s string
	if json.Unmarshal(c.lastRaw, &s) != nil {
		return ""
	}
	return s
}
