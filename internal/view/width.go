package view

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
