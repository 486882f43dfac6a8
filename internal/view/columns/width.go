// Package columns writes what is aligned in columns on a terminal (the
// runs list, a diff's --stat) and measures text in terminal cells. It links
// the terminal width tables (charmbracelet/x/ansi and its Unicode tables,
// whose package initialisation every start pays), so only the commands
// that draw columns import it: loop-view and loop-tui, not the three the
// driver starts every iteration (TestDependencyRules).
package columns

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Cells is how many terminal cells s takes, as terminals count them
// (wcwidth per rune: CJK and emoji take two, combining marks none; ANSI
// escape sequences none). Counting runes misaligned the columns after a
// CJK name or path.
func Cells(s string) int { return ansi.StringWidthWc(s) }

// padRight is s followed by spaces up to w cells.
func padRight(s string, w int) string {
	if n := Cells(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// Fit cuts s to at most w cells, between grapheme clusters, marking a cut
// with "…"; w <= 0 is no limit. Cutting by runes let a line of CJK take
// two rows, and cut an accent off its letter.
func Fit(s string, w int) string {
	if w <= 0 || Cells(s) <= w {
		return s
	}
	n, used := 0, 0
	for n < len(s) {
		c, cw := ansi.FirstGraphemeCluster(s[n:], ansi.WcWidth)
		if used+cw > w-1 {
			break
		}
		n, used = n+len(c), used+cw
	}
	return s[:n] + "…"
}
