// Package failure reads test and build output for what failed: the lines
// worth keeping when an output must be cut short (Excerpt), and the failing
// tests with their first message line (Extract), for go test, pytest, Jest,
// Vitest, cargo test, TAP, compilers and plain "error:" lines.
package failure

import "unicode/utf8"

// Strip removes terminal control sequences from s: CSI (colours, cursor
// moves), OSC (titles, links), other ESC sequences and control characters
// other than newline and tab. A carriage return inside a line keeps only
// what follows it, as a terminal would show a redrawn progress line.
func Strip(s string) string {
	if !needsStrip(s) {
		return s
	}
	b := make([]byte, 0, len(s))
	lineStart := 0 // where the current line starts in b
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1b:
			i = skipEscape(s, i)
			continue
		case c == '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
				continue
			}
			b = b[:lineStart]
			i++
			continue
		case c == '\n':
			b = append(b, '\n')
			lineStart = len(b)
			i++
			continue
		case c == '\t':
			b = append(b, c)
			i++
			continue
		case c < 0x20 || c == 0x7f:
			i++
			continue
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == 0x9b { // an 8-bit CSI
			i = skipCSI(s, i+size)
			continue
		}
		if r >= 0x80 && r < 0xa0 { // other C1 controls
			i += size
			continue
		}
		b = append(b, s[i:i+size]...)
		i += size
	}
	return string(b)
}

func needsStrip(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f || c == 0xc2 {
			return true
		}
	}
	return false
}

// skipEscape returns the index after the escape sequence starting at s[i].
func skipEscape(s string, i int) int {
	i++ // ESC
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSI(s, i+1)
	case ']', 'P', '_', '^', 'X': // OSC, DCS, APC, PM, SOS: up to BEL or ESC \
		for j := i + 1; j < len(s); j++ {
			if s[j] == 0x07 {
				return j + 1
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				return j + 2
			}
		}
		return len(s)
	}
	// ESC ( B and the like: intermediate bytes, then one final byte.
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) {
		i++
	}
	return i
}

// skipCSI skips parameter and intermediate bytes up to the final byte.
func skipCSI(s string, i int) int {
	for ; i < len(s); i++ {
		c := s[i]
		if c >= 0x40 && c <= 0x7e {
			return i + 1
		}
		if c < 0x20 || c > 0x7e { // not a sequence after all: keep what follows
			return i
		}
	}
	return i
}
