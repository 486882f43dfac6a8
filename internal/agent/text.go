package agent

import (
	"bufio"
	"io"
	"strings"

	"github.com/loopkit/loopkit/internal/record"
)

// textTailBytes is how much of a plain-text stream's end is kept for its
// final message.
const textTailBytes = 64 << 10

// parseText keeps the end of a plain-text stream: the final message is its
// last non-empty lines, up to FinalMessageChars characters. Tokens and cost
// stay unknown; a usage-limit notice in its last lines is a rate limit.
func parseText(br *bufio.Reader, w *penv) (*Result, error) {
	var tail []byte
	buf := make([]byte, 64<<10)
	for {
		n, err := br.Read(buf)
		tail = append(tail, buf[:n]...)
		if len(tail) > 2*textTailBytes {
			tail = append(tail[:0], tail[len(tail)-textTailBytes:]...)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	tail, _ = record.TailBytes(tail, textTailBytes)
	text := record.Text(tail)
	res := &Result{FinalMessage: finalLines(text)}
	res.textLimit(text, 5, w.now)
	return res, nil
}

// finalLines is the end of text: whole lines only (a line cut by the
// character limit is dropped), trimmed of surrounding whitespace.
func finalLines(s string) string {
	s = strings.TrimSpace(s)
	cut, truncated := record.TailChars(s, record.FinalMessageChars)
	if truncated {
		if i := strings.IndexByte(cut, '\n'); i >= 0 {
			cut = cut[i+1:]
		}
	}
	return strings.TrimSpace(cut)
}
