package failure

import (
	"slices"
	"strings"

	"github.com/loopkit/loopkit/internal/lazyre"
)

// found is what the detectors report: blocks of lines that say what failed
// and the failing tests, each at the line that names it.
type found struct {
	lines  []string
	blocks []block
	tests  []test
}

// block is lines that belong together (a failing test and its messages, a
// compiler error and its context). Generic blocks (lone "error:" lines)
// come after the others when room is short.
type block struct {
	lines   []int // ascending
	generic bool
}

type test struct {
	at        int
	name, msg string
}

func (f *found) add(generic bool, lines ...int) {
	if len(lines) == 0 {
		return
	}
	slices.Sort(lines)
	f.blocks = append(f.blocks, block{lines: slices.Compact(lines), generic: generic})
}

func (f *found) test(at int, name, msg string) {
	f.tests = append(f.tests, test{at: at, name: name, msg: strings.TrimSpace(msg)})
}

// analyze runs every detector over the stripped lines. Each one looks for
// its own framework's marks, so they can all run on any output.
func analyze(lines []string) *found {
	f := &found{lines: lines}
	goTest(f)
	pytest(f)
	jest(f)
	vitest(f)
	cargo(f)
	tap(f)
	compiler(f)
	generic(f)
	slices.SortStableFunc(f.blocks, func(a, b block) int {
		if a.generic != b.generic {
			if a.generic {
				return 1
			}
			return -1
		}
		return a.lines[0] - b.lines[0]
	})
	return f
}

func indentOf(s string) int {
	n := 0
	for _, c := range s {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return n
		}
	}
	return n
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }

var (
	goResult = lazyre.New(`^(\s*)--- (FAIL|PASS|SKIP): (\S+) \(`)
	goPanic  = lazyre.New(`^panic: `)
	goFrame  = lazyre.New(`^(testing\.|runtime\.|panic\(|created by )`)
)

// goTest finds `--- FAIL: X` with the messages that belong to X: the
// indented lines after it (plain mode), or those printed while X ran, from
// `=== RUN X` on (-v mode); and `panic:` with the first frames of user code.
func goTest(f *found) {
	owned := map[string][]int{}
	cur := ""
	type fail struct {
		at, indent int
		name       string
	}
	var fails []fail
	var panics []int
	for i, l := range f.lines {
		if !strings.Contains(l, "=== ") && !strings.Contains(l, "--- ") && !strings.HasPrefix(l, "panic: ") {
			if cur != "" && indentOf(l) > 0 && !blank(l) { // the common case, without a regexp
				owned[cur] = append(owned[cur], i)
			}
			continue
		}
		if name, ok := goEventName(l); ok {
			cur = name
			continue
		}
		if m := goResult.FindStringSubmatch(l); m != nil {
			if m[2] == "FAIL" {
				fails = append(fails, fail{i, indentOf(m[1]), m[3]})
			}
			cur = ""
			continue
		}
		if goPanic.MatchString(l) {
			panics = append(panics, i)
			goPanicBlock(f, i)
			continue
		}
		if cur != "" && indentOf(l) > 0 && !blank(l) {
			owned[cur] = append(owned[cur], i)
		}
	}
	parents := map[string]bool{} // tests with a failed subtest
	for _, fl := range fails {
		for i, c := range fl.name {
			if c == '/' {
				parents[fl.name[:i]] = true
			}
		}
	}
	for _, fl := range fails {
		lines := append(slices.Clone(owned[fl.name]), fl.at)
		for j := fl.at + 1; j < len(f.lines); j++ {
			l := f.lines[j]
			if blank(l) || indentOf(l) <= fl.indent {
				break
			}
			if m := goResult.FindStringSubmatch(l); m != nil && m[2] != "FAIL" {
				continue
			}
			lines = append(lines, j)
		}
		f.add(false, lines...)
		if parents[fl.name] {
			continue // the subtest names the failure
		}
		f.test(fl.at, fl.name, goMessage(f, lines, fl.at, panics))
	}
}

// goEventName reads "=== RUN|CONT|NAME|PAUSE name" without a regexp: in
// -v output nearly every other line is one.
func goEventName(l string) (string, bool) {
	t := strings.TrimLeft(l, " \t")
	if !strings.HasPrefix(t, "=== ") {
		return "", false
	}
	for _, ev := range []string{"RUN", "CONT", "NAME", "PAUSE"} {
		if rest, ok := strings.CutPrefix(t[4:], ev); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			if f := strings.Fields(rest); len(f) > 0 {
				return f[0], true
			}
		}
	}
	return "", false
}

var goLocated = lazyre.New(`^\s*\S+\.go:\d+: `)

// goMessage picks the test's last t.Error/t.Fatal line (those before it are
// often t.Log), else its first message line, else the panic after it.
func goMessage(f *found, lines []int, at int, panics []int) string {
	msg, located := "", ""
	for _, j := range lines {
		l := f.lines[j]
		if j == at || goResult.MatchString(l) {
			continue
		}
		if msg == "" {
			msg = l
		}
		if goLocated.MatchString(l) {
			located = l
		}
	}
	if located != "" {
		msg = located
	}
	if msg == "" {
		for _, p := range panics {
			if p > at && p <= at+3 {
				msg = f.lines[p]
			}
		}
	}
	return msg
}

// goPanicBlock keeps the panic lines and the first two frames outside the
// runtime and testing packages: where the code under test broke.
func goPanicBlock(f *found, at int) {
	lines := []int{at}
	i := at + 1
	for ; i < len(f.lines); i++ {
		t := strings.TrimSpace(f.lines[i])
		if !strings.HasPrefix(t, "panic:") && !strings.HasPrefix(t, "[recovered") {
			break
		}
		lines = append(lines, i)
	}
	for i < len(f.lines) && (blank(f.lines[i]) || strings.HasPrefix(f.lines[i], "goroutine ")) {
		i++
	}
	frames := 0
	for ; i+1 < len(f.lines) && frames < 2; i += 2 {
		fn, file := f.lines[i], f.lines[i+1]
		if blank(fn) || fn[0] == '\t' || !strings.HasPrefix(file, "\t") {
			break
		}
		if goFrame.MatchString(fn) {
			continue
		}
		lines = append(lines, i, i+1)
		frames++
	}
	f.add(false, lines...)
}

var (
	ccError   = lazyre.New(`^\S+?:\d+:\d+:\s*(.*)$`)
	tscError  = lazyre.New(`^\S+\(\d+,\d+\): error`)
	rustError = lazyre.New(`^error(\[\w+\])?: `)
)

// compiler finds `file:line:col: message` (not warnings or notes) with the
// indented context lines under it, and rustc's `error[E...]:` blocks.
func compiler(f *found) {
	for i, l := range f.lines {
		if !hasLineCol(l) && !strings.HasPrefix(l, "error") && !strings.Contains(l, "): error") {
			continue
		}
		switch {
		case tscError.MatchString(l):
			f.add(false, i)
		case rustError.MatchString(l):
			lines := []int{i}
			for j := i + 1; j < len(f.lines) && j < i+12 && !blank(f.lines[j]); j++ {
				lines = append(lines, j)
			}
			f.add(false, lines...)
		default:
			m := ccError.FindStringSubmatch(l)
			if m == nil || strings.HasPrefix(m[1], "warning") || strings.HasPrefix(m[1], "note") {
				continue
			}
			lines := []int{i}
			for j := i + 1; j < len(f.lines) && j < i+6 && strings.HasPrefix(f.lines[j], " ") && !blank(f.lines[j]); j++ {
				lines = append(lines, j)
			}
			f.add(false, lines...)
		}
	}
}

// hasLineCol reports a ":N:N:" in the line, cheaply, before any regexp.
func hasLineCol(l string) bool {
	for i := strings.IndexByte(l, ':'); i >= 0 && i+1 < len(l); {
		j := i + 1
		for j < len(l) && l[j] >= '0' && l[j] <= '9' {
			j++
		}
		if j > i+1 && j < len(l) && l[j] == ':' {
			k := j + 1
			for k < len(l) && l[k] >= '0' && l[k] <= '9' {
				k++
			}
			if k > j+1 && k < len(l) && l[k] == ':' {
				return true
			}
		}
		next := strings.IndexByte(l[i+1:], ':')
		if next < 0 {
			return false
		}
		i += 1 + next
	}
	return false
}

var genericError = lazyre.New(`[Ee]rror(\[\w+\])?:|ERROR:|Exception:|\berror TS\d+:`)

// generic keeps any other line that says error: on its own.
func generic(f *found) {
	for i, l := range f.lines {
		if (strings.Contains(l, "rror") || strings.Contains(l, "ERROR") || strings.Contains(l, "xception")) && genericError.MatchString(l) {
			f.add(true, i)
		}
	}
}
