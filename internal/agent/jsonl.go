package agent

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// eachJSONLine calls fn with every non-empty line that is short enough to
// decode, warning about the rest; fn decodes it. A line that is exactly
// "{" starts a pretty-printed object: pretty is then called with the
// reader positioned at it and the loop ends.
func eachJSONLine(br *bufio.Reader, w *penv, fn func(b []byte) error, pretty func(br *bufio.Reader, lineNo int)) error {
	lr := newLineReader(br, MaxLineBytes)
	for {
		if pretty != nil {
			if b, err := br.Peek(2); err == nil && b[0] == '{' && (b[1] == '\n' || b[1] == '\r') {
				pretty(br, lr.n+1)
				return nil
			}
		}
		l, err := lr.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if l.long {
			w.skip(lr.n, fmt.Sprintf("longer than %d bytes", MaxLineBytes))
			continue
		}
		if len(l.b) == 0 {
			continue
		}
		if err := fn(l.b); err != nil {
			if l.torn {
				w.skip(lr.n, "torn last line")
			} else {
				w.skip(lr.n, "not JSON")
			}
		}
	}
}

// tailText keeps the end of a text built from many chunks (streamed
// deltas), so that a text-only stream of any size stays bounded.
type tailText struct{ b []byte }

const tailTextMax = 64 << 10

func (t *tailText) add(s string) {
	t.b = append(t.b, s...)
	if len(t.b) > 2*tailTextMax {
		t.b = append(t.b[:0], t.b[len(t.b)-tailTextMax:]...)
	}
}

func (t *tailText) reset()         { t.b = t.b[:0] }
func (t *tailText) String() string { return string(t.b) }

// valueReader feeds a json.Decoder from br, never past the end of a line:
// the decoder's read-ahead is then the rest of one line, and the stream
// goes on from br. It counts the newlines it passed and fails a value
// (an array's element, a pretty-printed object) past MaxLineBytes, which
// the decoder would hold whole in memory.
type valueReader struct {
	br        *bufio.Reader
	lines     int
	lineStart bool // the last byte read ended a line
	elem      int  // bytes read since the value began
}

var errLongValue = errors.New("JSON value too long")

func (a *valueReader) Read(p []byte) (int, error) {
	if a.elem > MaxLineBytes {
		return 0, errLongValue
	}
	if _, err := a.br.Peek(1); err != nil {
		return 0, err
	}
	n := min(len(p), a.br.Buffered(), MaxLineBytes+1-a.elem)
	data, _ := a.br.Peek(n)
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		data = data[:i+1]
		a.lines++
	}
	n = copy(p, data)
	a.br.Discard(n)
	a.lineStart = n > 0 && data[n-1] == '\n'
	a.elem += n
	return n, nil
}
