package columns

import (
	"fmt"
	"io"
	"strings"

	"github.com/loopkit/loopkit/internal/view"
)

// WriteStat writes git's --stat summary: " path | N +++--" per file, then
// "K files changed, A insertions(+), R deletions(-)".
func WriteStat(w io.Writer, style view.Style, stats []view.FileStat) error {
	width, most, added, removed := 0, 0, 0, 0
	for _, s := range stats {
		width = max(width, Cells(view.Escape(s.Path, false)))
		most = max(most, s.Added+s.Removed)
		added += s.Added
		removed += s.Removed
	}
	digits := len(fmt.Sprint(most))
	bar := 50 // columns for the +/- bar, as git does at 80 columns
	var b strings.Builder
	for _, s := range stats {
		fmt.Fprintf(&b, " %s | ", padRight(view.Escape(s.Path, false), width)) // fmt pads in runes
		if s.Binary {
			b.WriteString("Bin\n")
			continue
		}
		n := s.Added + s.Removed
		plus, minus := s.Added, s.Removed
		if most > bar {
			plus, minus = scale(s.Added, most, bar), scale(s.Removed, most, bar)
		}
		fmt.Fprintf(&b, "%*d %s%s\n", digits, n, style.Paint(view.Green, strings.Repeat("+", plus)), style.Paint(view.Red, strings.Repeat("-", minus)))
	}
	fmt.Fprintf(&b, " %s", view.Plural(len(stats), "file")+" changed")
	if added > 0 || removed == 0 {
		fmt.Fprintf(&b, ", %d insertion%s(+)", added, pluralS(added))
	}
	if removed > 0 || added == 0 {
		fmt.Fprintf(&b, ", %d deletion%s(-)", removed, pluralS(removed))
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// scale shrinks n of most to at most width columns, keeping a non-zero count visible.
func scale(n, most, width int) int {
	if n == 0 {
		return 0
	}
	return max(1, n*width/most)
}

func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
