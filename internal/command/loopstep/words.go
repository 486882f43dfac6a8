package loopstep

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/view"
)

// Bounds of the agent's own words kept in a step's error.
const (
	wordsLines = 3
	wordsBytes = 300
)

// agentWords is what an agent that failed without a structured error said
// last: the last three non-empty lines of its stderr, else of its stdout,
// escaped onto one line (a newline shows as \n) and cut to their last 300
// bytes. "" when it printed nothing. A JSON object on stdout is an event
// of the agent's stream (already read for its errors), not words: an
// interrupted Claude Code otherwise left its last raw events as the error.
func agentWords(stderr, stdout []byte) string {
	lines := lastLines(stderr, wordsLines, false)
	if len(lines) == 0 {
		lines = lastLines(stdout, wordsLines, true)
	}
	s := view.Escape(strings.Join(lines, "\n"), false)
	if len(s) <= wordsBytes {
		return s
	}
	const cut = "…"
	tail, _ := record.TailBytes([]byte(s), wordsBytes-len(cut))
	return cut + string(tail)
}

// lastLines are b's last n lines that hold more than blanks, trimmed,
// oldest first; without JSON objects when noEvents.
func lastLines(b []byte, n int, noEvents bool) []string {
	var out []string
	for len(b) > 0 && len(out) < n {
		i := bytes.LastIndexByte(b, '\n')
		line := b[i+1:]
		b = b[:max(i, 0)]
		if t := strings.TrimSpace(record.Text(line)); t != "" && !(noEvents && isEvent(t)) {
			out = append(out, t)
		}
		if i < 0 {
			break
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

func isEvent(line string) bool {
	return strings.HasPrefix(line, "{") && json.Valid([]byte(line))
}
