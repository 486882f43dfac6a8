package record

import (
	"strings"
	"unicode/utf8"

	"github.com/loopkit/loopkit/internal/lazyre"
)

// Text turns captured bytes into valid UTF-8, replacing invalid sequences
// with U+FFFD, so that JSON records always carry valid text.
func Text(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// TailBytes returns the last max bytes of b, moved forward to the start of a
// UTF-8 sequence so the cut never splits a character; truncated reports a cut.
func TailBytes(b []byte, max int) (tail []byte, truncated bool) {
	if len(b) <= max {
		return b, false
	}
	start := len(b) - max
	for i := 0; i < utf8.UTFMax && start < len(b) && !utf8.RuneStart(b[start]); i++ {
		start++
	}
	return b[start:], true
}

// HeadBytes returns at most the first max bytes of s, cut back to the
// start of a UTF-8 sequence so the cut never splits a character.
func HeadBytes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	end := max
	for i := 0; i < utf8.UTFMax && end > 0 && !utf8.RuneStart(s[end]); i++ {
		end--
	}
	return s[:end]
}

// HeadChars returns the first n characters of s (not bytes).
func HeadChars(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// TailChars returns the last n characters of s and whether anything was cut.
func TailChars(s string, n int) (string, bool) {
	if n <= 0 {
		return "", s != ""
	}
	if len(s) <= n { // fewer bytes than n means fewer characters too
		return s, false
	}
	count := 0
	for i := len(s); i > 0; {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
		count++
		if count == n {
			return s[i:], i > 0
		}
	}
	return s, false
}

// Fence is a markdown code fence for s: three backticks, or one more than
// the longest run of backticks in s (CommonMark's rule), so that a child's
// text holding ``` cannot close the block and go on as markdown of its own
// (a forged "## Iteration" entry in the next prompt).
func Fence(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] != '`' {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	return strings.Repeat("`", max(3, longest+1))
}

// topHeading is a Markdown heading of level 1 or 2: a document's sections.
var topHeading = lazyre.New(`(?m)^( {0,3})(#{1,2})([ \t]|$)`)

// Demoted is text to put inside a section of a Markdown document or
// prompt (an agent's answer): its level 1 and 2 headings two levels down,
// so that it can neither add a section of its own nor end the one it is in.
func Demoted(text string) string { return topHeading.ReplaceAllString(text, "${1}##${2}${3}") }
