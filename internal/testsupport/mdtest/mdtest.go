// Package mdtest reads markdown as a reader does, for tests that check
// what a child's text can make of a document loopkit writes.
package mdtest

import "strings"

// Outside returns the lines of doc outside fenced code blocks, closing a
// block as CommonMark does (a line of at least as many backticks), and
// the fence still open at the end ("" when none).
func Outside(doc string) (lines []string, open string) {
	for _, line := range strings.Split(doc, "\n") {
		fence := line
		for i := 0; i < 3 && strings.HasPrefix(fence, " "); i++ {
			fence = fence[1:] // a fence may be indented up to three spaces
		}
		run := len(fence) - len(strings.TrimLeft(fence, "`"))
		switch {
		case open == "" && run >= 3:
			open = fence[:run]
		case open != "" && run >= len(open) && strings.TrimSpace(fence[run:]) == "":
			open = ""
		case open == "":
			lines = append(lines, line)
		}
	}
	return lines, open
}
