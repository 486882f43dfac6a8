// Package plan reads a plan: a Markdown task list whose checkboxes an agent
// ticks as it works ("- [ ] task", "- [x] done"), nested lists included.
package plan

import (
	"bytes"
	"strings"

	"github.com/loopkit/loopkit/internal/safefile"
)

// Tasks counts a plan's checkboxes. Every box counts, at any depth: a
// nested sub-task is as much work as the task above it, and a person reads
// "3/7" the same way whichever level was ticked.
type Tasks struct {
	Done  int
	Total int
}

// Count reads the boxes of a Markdown text. List items with "-", "*", "+"
// or "1." / "1)" markers carry a box when their text starts with "[ ]",
// "[x]" or "[X]"; boxes inside fenced code blocks are examples, not tasks.
func Count(data []byte) Tasks {
	var t Tasks
	fence := ""
	// lines of any length (a bufio.Scanner stopped counting at its limit),
	// after an editor's byte-order mark
	rest := bytes.TrimPrefix(data, []byte("\ufeff"))
	for len(rest) > 0 {
		var ln []byte
		ln, rest, _ = bytes.Cut(rest, []byte{'\n'})
		line := strings.TrimLeft(string(bytes.TrimSuffix(ln, []byte{'\r'})), " \t>")
		if f := fenceOf(line); f != "" {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(f, fence):
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		rest, ok := afterMarker(line)
		if !ok || len(rest) < 3 || rest[0] != '[' || rest[2] != ']' {
			continue
		}
		if len(rest) > 3 && rest[3] != ' ' && rest[3] != '\t' {
			continue // "[x]foo" is a link or text, not a box
		}
		switch rest[1] {
		case ' ':
			t.Total++
		case 'x', 'X':
			t.Total++
			t.Done++
		}
	}
	return t
}

// CountFile counts the boxes of a plan file, read as every file in the
// agent's reach is (internal/safefile): never a FIFO, never through a link.
func CountFile(path string) (Tasks, error) {
	data, err := safefile.ReadFile(path, safefile.DocMax)
	if err != nil {
		return Tasks{}, err
	}
	return Count(data), nil
}

func fenceOf(line string) string {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(line, f) {
			n := len(line) - len(strings.TrimLeft(line, f[:1]))
			return strings.Repeat(f[:1], n)
		}
	}
	return ""
}

// afterMarker returns a list item's text after its marker and one space.
func afterMarker(line string) (string, bool) {
	if len(line) >= 2 && strings.ContainsRune("-*+", rune(line[0])) && (line[1] == ' ' || line[1] == '\t') {
		return strings.TrimLeft(line[2:], " \t"), true
	}
	i := 0
	for i < len(line) && i < 9 && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(line) && (line[i] == '.' || line[i] == ')') && (line[i+1] == ' ' || line[i+1] == '\t') {
		return strings.TrimLeft(line[i+2:], " \t"), true
	}
	return "", false
}
