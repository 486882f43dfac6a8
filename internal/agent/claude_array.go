package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Claude Code's --output-format json --verbose: one JSON array of every
// message, on one line or pretty-printed.

// arrayAhead says whether the line at the reader's position opens a JSON
// array of messages rather than text that starts with a bracket
// ("[dotenv@17.2.1] injecting env", "[INFO] ...").
func arrayAhead(br *bufio.Reader) bool {
	window, _ := br.Peek(peekBytes)
	ln, _, _ := bytes.Cut(window, []byte{'\n'})
	return arrayLine(bytes.TrimSpace(ln))
}

// array decodes the messages of the array at lr's position, element by
// element; the lines after it are read as any others. What follows the
// array on its last line (or the element a syntax error stopped at) is
// read as a line.
func (c *claude) array(lr *lineReader, w *penv) {
	lineNo := lr.n + 1
	ar := &valueReader{br: lr.r}
	dec := json.NewDecoder(ar)
	if _, err := dec.Token(); err != nil { // the '['
		w.skip(lineNo, "bad JSON array")
	} else {
		for dec.More() {
			ar.elem = 0
			var m claudeMsg
			err := dec.Decode(&m)
			var te *json.UnmarshalTypeError
			if err == nil || errors.As(err, &te) {
				c.message(&m, nil)
				continue
			}
			if errors.Is(err, errLongValue) {
				lr.n += ar.lines
				if !ar.lineStart { // the rest of the line: no resynchronising inside it
					lr.skipRest()
					lr.n++
				}
				w.skip(lr.n, fmt.Sprintf("JSON array element longer than %d bytes", MaxLineBytes))
				return
			}
			// a syntax error leaves nothing to resynchronise on but the line
			w.skip(lr.n+ar.lines+1, fmt.Sprintf("bad JSON array element at byte %d: %v", dec.InputOffset(), err))
			break
		}
		dec.Token() // the ']'
	}
	left := bytes.Clone(readAllBuffered(dec))
	lr.n += ar.lines - bytes.Count(left, []byte{'\n'})
	if len(left) == 0 {
		return
	}
	if left[len(left)-1] != '\n' {
		// the decoder stopped inside a line: the rest of it is still in br
		if l, err := lr.next(); err == nil {
			lr.n-- // the same line as left
			if l.long || len(left)+len(l.b) > MaxLineBytes {
				lr.n++
				w.skip(lr.n, fmt.Sprintf("longer than %d bytes", MaxLineBytes))
				return
			}
			left = append(left, l.b...)
		}
	}
	lr.n++
	c.line(line{b: trimEOL(left)}, lr.n, w)
}

func readAllBuffered(dec *json.Decoder) []byte {
	var b bytes.Buffer
	b.ReadFrom(dec.Buffered()) // at most the rest of one line
	return b.Bytes()
}
