package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"regexp"
)

// peekBytes is how much of the stream format detection looks at.
const peekBytes = 256 << 10

// maxDetectLines bounds how many lines detection reads past banners.
const maxDetectLines = 200

var claudeTypes = map[string]bool{
	"system": true, "assistant": true, "user": true, "result": true,
	"stream_event": true, "rate_limit_event": true,
}

var codexTypes = map[string]bool{
	"thread.started": true, "turn.started": true, "turn.completed": true,
	"turn.failed": true, "item.started": true, "item.updated": true,
	"item.completed": true, "error": true,
}

// typePrefix reads the type of a JSON line too long to decode here: both
// CLIs print "type" as the first key.
var typePrefix = regexp.MustCompile(`^\{\s*"type"\s*:\s*"([^"\\]{1,64})"`)

// Detect names the format of the stream behind r from its first JSON
// values, without consuming anything: a JSON array or a Claude message type
// is claude, a Codex event type is codex, anything else text.
func Detect(r *bufio.Reader) string {
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
			return FormatClaude
		case '{':
		default:
			continue
		}
		var head struct {
			Type string `json:"type"`
		}
		typ := ""
		if complete && json.Unmarshal(ln, &head) == nil {
			typ = head.Type
		} else if m := typePrefix.FindSubmatch(ln); m != nil {
			typ = string(m[1])
		}
		switch {
		case claudeTypes[typ]:
			return FormatClaude
		case codexTypes[typ]:
			return FormatCodex
		}
	}
	return FormatText
}
