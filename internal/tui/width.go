package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/loopkit/loopkit/internal/view/columns"
)

// Widths are counted in terminal cells, as the renderer counts them (by
// default wcwidth per rune: CJK and emoji take two cells, combining marks
// none), and text is cut between grapheme clusters only: counting runes
// let a line of CJK run past the screen's edge, where the renderer drops
// what does not fit, and cut an accent from its letter.

// cut splits s after at most w cells, between grapheme clusters; the head
// holds at least one cluster so a caller's loop always moves on.
func cut(s string, w int) (head, rest string) {
	n, used := 0, 0
	for n < len(s) {
		c, cw := ansi.FirstGraphemeCluster(s[n:], ansi.WcWidth)
		if used+cw > w && n > 0 {
			break
		}
		n, used = n+len(c), used+cw
	}
	return s[:n], s[n:]
}

// wrap cuts a line into pieces of at most width cells, each after the
// first indented by four spaces, fewer on a screen so narrow that a wide
// character would not fit after them.
func wrap(s string, width int) []string {
	if width <= 4 || columns.Cells(s) <= width {
		return []string{s}
	}
	indent := strings.Repeat(" ", min(4, width-4))
	var out []string
	prefix, start, used := "", 0, 0 // the piece being filled: prefix+s[start:n]
	for n := 0; n < len(s); {
		c, cw := ansi.FirstGraphemeCluster(s[n:], ansi.WcWidth)
		if used+cw > width && n > start {
			out = append(out, prefix+s[start:n])
			prefix, start, used = indent, n, len(indent)
		}
		n, used = n+len(c), used+cw
	}
	return append(out, prefix+s[start:])
}

// truncate fits s in w cells, marking a cut with "…".
func truncate(s string, w int) string {
	if columns.Cells(s) <= w {
		return s
	}
	head, _ := cut(s, max(w-1, 0))
	if columns.Cells(head) > max(w-1, 0) { // one cluster wider than the room
		head = ""
	}
	return head + "…"
}
