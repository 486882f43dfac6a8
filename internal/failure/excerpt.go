package failure

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/loopkit/loopkit/internal/record"
)

// Marker stands where lines were left out.
const Marker = "...[truncated]..."

// Excerpt returns at most maxChars characters of output, markers included,
// that say what failed: control sequences stripped, then the failure
// blocks whole while they fit (in order of appearance, lone error lines
// last), then as much of the end as the room left allows, cut only between
// lines, with Marker on a line wherever lines were left out. An output that
// fits is returned whole (stripped, trimmed); cut reports that it did not.
func Excerpt(output string, maxChars int) (excerpt string, cut bool) {
	lines := splitLines(Strip(output))
	if len(lines) == 0 {
		return "", false
	}
	s := &selection{lines: lines, max: maxChars}
	s.prefix()
	all := make([]int, len(lines))
	for i := range all {
		all[i] = i
	}
	if s.cost(all) <= maxChars {
		return strings.Join(lines, "\n"), false
	}
	for _, b := range analyze(lines).blocks {
		if !s.tryAdd(b.lines...) && len(s.sel) == 0 {
			for _, i := range b.lines { // a first block too long to fit: its head
				if !s.tryAdd(i) {
					break
				}
			}
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if !slices.Contains(s.sel, i) && !s.tryAdd(i) {
			break
		}
	}
	if len(s.sel) == 0 { // not even the last line fits: its end, mid-line
		room := maxChars - utf8.RuneCountInString(Marker) - 1
		if room <= 0 {
			return record.HeadChars(Marker, max(maxChars, 0)), true
		}
		tail, _ := record.TailChars(lines[len(lines)-1], room)
		return Marker + "\n" + tail, true
	}
	return s.render(), true
}

// splitLines splits stripped text into lines without trailing blanks, and
// drops the blank lines at either end.
func splitLines(s string) []string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	return lines
}

// selection is the set of kept lines, ascending, and what it costs.
type selection struct {
	lines    []string
	max      int
	sel      []int
	nonBlank []int // nonBlank[i]: non-blank lines before line i
	width    []int // characters of each line
}

func (s *selection) prefix() {
	s.nonBlank = make([]int, len(s.lines)+1)
	s.width = make([]int, len(s.lines))
	for i, l := range s.lines {
		s.width[i] = utf8.RuneCountInString(l)
		s.nonBlank[i+1] = s.nonBlank[i]
		if l != "" {
			s.nonBlank[i+1]++
		}
	}
}

// tryAdd keeps the lines when the result still fits.
func (s *selection) tryAdd(lines ...int) bool {
	next := slices.Clone(s.sel)
	for _, i := range lines {
		if !slices.Contains(next, i) {
			next = append(next, i)
		}
	}
	slices.Sort(next)
	if s.cost(next) > s.max {
		return false
	}
	s.sel = next
	return true
}

// gaps calls fn for each run of left-out lines [from, to) that holds text;
// runs of blank lines are dropped without a marker.
func (s *selection) gaps(sel []int, fn func(before int)) {
	prev := 0
	for _, i := range sel {
		if s.nonBlank[i]-s.nonBlank[prev] > 0 {
			fn(i)
		}
		prev = i + 1
	}
	if s.nonBlank[len(s.lines)]-s.nonBlank[prev] > 0 {
		fn(len(s.lines))
	}
}

// cost is the length in characters of what render would print.
func (s *selection) cost(sel []int) int {
	n := 0
	for _, i := range sel {
		n += s.width[i] + 1
	}
	markers := 0
	s.gaps(sel, func(int) { markers++ })
	n += markers * (utf8.RuneCountInString(Marker) + 1)
	return max(n-1, 0)
}

func (s *selection) render() string {
	var b strings.Builder
	marks := map[int]bool{}
	s.gaps(s.sel, func(before int) { marks[before] = true })
	for _, i := range s.sel {
		if marks[i] {
			b.WriteString(Marker + "\n")
		}
		b.WriteString(s.lines[i] + "\n")
	}
	if marks[len(s.lines)] {
		b.WriteString(Marker + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
