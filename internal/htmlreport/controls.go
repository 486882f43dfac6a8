package htmlreport

import (
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/loopkit/loopkit/internal/quote"
)

// controls passes a page on with what a record can carry that acts
// instead of showing (in a run's name, a file's name or content, an
// output, an agent's message) written as the terminal views write it:
// control bytes as \x1b, C1 controls and bidirectional overrides as
// \u202e, bytes that are not UTF-8 as \xff. html/template leaves them all;
// a browser shows nothing of a control, lets an override reorder a diff's
// line (Trojan Source), and a page read with cat must not drive the
// terminal (U+009B is a CSI there). Tab, newline and carriage return stay.
// A character cut between two writes is held until the next one.
type controls struct {
	w    io.Writer
	held []byte
}

func (c *controls) Write(p []byte) (int, error) {
	n := len(p)
	if len(c.held) > 0 {
		p = append(c.held, p...)
		c.held = nil
	}
	// hold an incomplete character at the end
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				c.held = append([]byte(nil), p[i:]...)
				p = p[:i]
			}
			break
		}
	}
	if err := c.escape(p); err != nil {
		return 0, err
	}
	return n, nil
}

// end writes what is still held: bytes that never became a character.
func (c *controls) end() error {
	held := c.held
	c.held = nil
	return c.escape(held)
}

func (c *controls) escape(p []byte) error {
	start := 0
	for i := 0; i < len(p); {
		b, size := p[i], 1
		var esc string
		switch {
		case b >= 0x20 && b < 0x7f || b == '\t' || b == '\n' || b == '\r':
		case b < 0x80:
			esc = fmt.Sprintf(`\x%02x`, b)
		default:
			var r rune
			r, size = utf8.DecodeRune(p[i:])
			if r == utf8.RuneError && size == 1 {
				esc = fmt.Sprintf(`\x%02x`, b)
			} else if quote.UnsafeRune(r) {
				esc = fmt.Sprintf(`\u%04x`, r)
			}
		}
		if esc == "" {
			i += size
			continue
		}
		if _, err := c.w.Write(p[start:i]); err != nil {
			return err
		}
		if _, err := io.WriteString(c.w, esc); err != nil {
			return err
		}
		i += size
		start = i
	}
	_, err := c.w.Write(p[start:])
	return err
}
