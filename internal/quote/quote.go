// Package quote writes text a child wrote so that it shows instead of
// acting: on one line, with no control or bidirectional character left.
package quote

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Line shows s (a file the agent named, a message quoting it) on one
// line: a newline, or another control, bidirectional or invalid character,
// is written escaped as Go quotes it, so s can neither start a line of its
// own in a document nor drive a terminal; printable text stays as it is.
func Line(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || r != ' ' && !strconv.IsPrint(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == ' ' || r != utf8.RuneError && strconv.IsPrint(r) {
			b.WriteString(s[i : i+size])
		} else {
			q := strconv.Quote(s[i : i+size])
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
}
