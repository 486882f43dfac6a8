package record

import (
	"strconv"
	"strings"
	"unicode/utf8"
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

// OneLine shows a name (a file the agent wrote) on one line: a newline, or
// another control or bidirectional character, is written escaped as Go
// quotes it, so the name cannot start a line of its own in a document.
func OneLine(name string) string {
	clean := true
	for _, r := range name {
		if r == utf8.RuneError || r != ' ' && !strconv.IsPrint(r) {
			clean = false
			break
		}
	}
	if clean {
		return name
	}
	var b strings.Builder
	for i := 0; i < len(name); {
		r, size := utf8.DecodeRuneInString(name[i:])
		if r == ' ' || r != utf8.RuneError && strconv.IsPrint(r) {
			b.WriteString(name[i : i+size])
		} else {
			q := strconv.Quote(name[i : i+size])
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
}
