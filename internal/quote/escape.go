package quote

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Escape makes child-written text safe for a terminal: control bytes
// (escape sequences, carriage returns, NUL), C1 controls and bidirectional
// overrides are shown as \xNN, \r or \uNNNN instead of acting on the screen,
// and so is a byte that is not UTF-8 (a lone 0x9b is a CSI to a terminal
// reading 8-bit controls). Newlines and tabs are kept when multiline,
// escaped otherwise.
func Escape(s string, multiline bool) string {
	if safe(s, multiline) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&b, `\x%02x`, s[i])
			i++
			continue
		}
		i += size
		switch {
		case multiline && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case UnsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func safe(s string, multiline bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return safeRunes(s[i:])
		}
		if c < 0x20 || c == 0x7f {
			if !multiline || (c != '\n' && c != '\t') {
				return false
			}
		}
	}
	return true
}

func safeRunes(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if Acts(r) {
			return false
		}
	}
	return true
}

// Acts: a control character (C0, DEL, C1) or a bidirectional override,
// which acts on a terminal or a reader instead of showing.
func Acts(r rune) bool { return r < 0x20 || r == 0x7f || UnsafeRune(r) }

// Blank is s with every character that Acts made a space: for a line kept
// as plain text (a report's field or cell), where an escape would be noise.
func Blank(s string) string {
	return strings.Map(func(r rune) rune {
		if Acts(r) {
			return ' '
		}
		return r
	}, s)
}

// UnsafeRune: C1 controls (0x9b is a one-byte CSI on some terminals) and the
// bidirectional controls that reorder what a reader sees (Trojan Source's
// list, U+061C included).
func UnsafeRune(r rune) bool {
	return r >= 0x80 && r < 0xa0 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}

// JSON rewrites each C1 control and bidirectional override in JSON text as
// its \uXXXX escape: the value stays the same, and the text no longer acts
// on the terminal that shows it (cat of a log, jq's output); encoding/json
// and gojq escape only C0 controls. Such characters occur only inside
// strings, so they are replaced where they stand.
func JSON(b []byte) []byte {
	i, r, size := nextUnsafe(b, 0)
	if i == len(b) {
		return b // no copy for the common line, em dashes and all
	}
	out, from := make([]byte, 0, len(b)+32), 0
	for i < len(b) {
		out = fmt.Appendf(append(out, b[from:i]...), `\u%04x`, r)
		from = i + size
		i, r, size = nextUnsafe(b, from)
	}
	return append(out, b[from:]...)
}

// nextUnsafe finds the first rune UnsafeRune names at or after from in b:
// its offset (len(b) when none), the rune and its size.
func nextUnsafe(b []byte, from int) (int, rune, int) {
	for i := from; i < len(b); i++ {
		if c := b[i]; c == 0xc2 || c == 0xd8 || c == 0xe2 { // the lead bytes of every rune UnsafeRune names
			if r, size := utf8.DecodeRune(b[i:]); size > 1 && UnsafeRune(r) {
				return i, r, size
			}
		}
	}
	return len(b), 0, 0
}
