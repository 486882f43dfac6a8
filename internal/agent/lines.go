package agent

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// MaxLineBytes is the longest line a parser decodes. Longer lines (a tool
// result of hundreds of megabytes) stream past without being buffered and
// are skipped with a warning, so memory stays bounded whatever the agent prints.
const MaxLineBytes = 16 << 20

// lineReader reads newline-terminated lines of any length with bounded
// memory. bufio.Scanner would stop at its token limit; this skips instead.
type lineReader struct {
	r   *bufio.Reader
	buf []byte
	max int
	n   int // number of the line last returned, from 1
}

func newLineReader(r *bufio.Reader, max int) *lineReader {
	return &lineReader{r: r, max: max}
}

// line is one line read: its bytes (valid until the next read) without the
// newline, long when it was over max (bytes dropped), torn when the stream
// ended without a newline.
type line struct {
	b          []byte
	long, torn bool
}

// next returns the next line, or io.EOF at the end of the stream.
func (lr *lineReader) next() (line, error) {
	var l line
	if cap(lr.buf) > 1<<20 {
		lr.buf = nil // do not hold a long line's buffer for the rest of the stream
	}
	lr.buf = lr.buf[:0]
	got, first := false, true
	for {
		frag, err := lr.r.ReadSlice('\n')
		got = got || len(frag) > 0
		if err == nil && first {
			// The whole line sits in bufio's buffer: no copy.
			lr.n++
			l.b = trimEOL(frag)
			if len(l.b) > lr.max {
				l.b, l.long = nil, true
			}
			return l, nil
		}
		first = false
		if !l.long {
			if len(lr.buf)+len(frag) > lr.max+2 {
				l.long, lr.buf = true, lr.buf[:0]
			} else {
				lr.buf = append(lr.buf, frag...)
			}
		}
		switch {
		case err == nil:
			lr.n++
			l.b = trimEOL(lr.buf)
			return l, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if !got {
				return l, io.EOF
			}
			lr.n++
			l.b, l.torn = lr.buf, true
			if l.long {
				l.b = nil
			}
			return l, nil
		default:
			return l, err
		}
	}
}

// skipRest reads past the end of the current line (one that was already
// counted), without keeping it.
func (lr *lineReader) skipRest() {
	for {
		_, err := lr.r.ReadSlice('\n')
		if !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}

// peekStart skips blanks at the start of the next line and returns its first
// byte without consuming it (0 at the end of the stream).
func (lr *lineReader) peekStart() byte {
	for {
		b, err := lr.r.Peek(1)
		if err != nil {
			return 0
		}
		if b[0] != ' ' && b[0] != '\t' && b[0] != '\r' {
			return b[0]
		}
		lr.r.ReadByte()
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'})
}
