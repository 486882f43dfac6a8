package failure

import (
	"slices"
	"strings"

	"github.com/loopkit/loopkit/internal/lazyre"
)

// The test runners of other languages: pytest, Jest, Vitest, cargo test
// and TAP, each read from its own report format.

var (
	pyMark   = lazyre.New(`^=+ (FAILURES|ERRORS|short test summary info) =+$`)
	pyFailed = lazyre.New(`^(?:FAILED|ERROR) (\S+)(?: - (.*))?$`)
	pyHeader = lazyre.New(`^_{3,} (.+?) _{3,}$`)
	pyLoc    = lazyre.New(`^\S+:\d+: ?\w*$`)
)

// pytest finds the `E` lines of each failure with the `>` line before them
// and the location after, and the FAILED lines of the short summary, which
// name the tests (the section headers do when there is no summary).
func pytest(f *found) {
	if !slices.ContainsFunc(f.lines, pyMark.MatchString) {
		return
	}
	type head struct {
		at   int
		name string
	}
	var heads []head
	summary := slices.ContainsFunc(f.lines, pyFailed.MatchString)
	for i := 0; i < len(f.lines); i++ {
		l := f.lines[i]
		if m := pyHeader.FindStringSubmatch(l); m != nil {
			heads = append(heads, head{i, m[1]})
			continue
		}
		if m := pyFailed.FindStringSubmatch(l); m != nil {
			f.add(false, i)
			f.test(i, m[1], m[2])
			continue
		}
		if !strings.HasPrefix(l, "E ") {
			continue
		}
		var lines []int
		for j := i - 1; j >= 0 && !pyHeader.MatchString(f.lines[j]); j-- {
			if strings.HasPrefix(f.lines[j], ">") {
				lines = append(lines, j)
				break
			}
		}
		first := i
		for ; i < len(f.lines) && strings.HasPrefix(f.lines[i], "E "); i++ {
			lines = append(lines, i)
		}
		for j := i; j < len(f.lines) && j < i+3; j++ {
			if pyLoc.MatchString(f.lines[j]) {
				lines = append(lines, j)
				break
			}
		}
		f.add(false, lines...)
		if !summary && len(heads) > 0 && heads[len(heads)-1].at < first {
			h := heads[len(heads)-1]
			f.test(h.at, h.name, strings.TrimPrefix(f.lines[first], "E "))
			heads = heads[:len(heads)-1]
		}
		i--
	}
}

var (
	jestBullet = lazyre.New(`^(\s*)● (.+)$`)
	codeFrame  = lazyre.New(`^\s*>?\s*\d*\s*\|`)
	failLine   = lazyre.New(`^\s*FAIL\s+\S`)
)

// jest finds the `●` blocks (message, expected/received and the first `at`
// line, without the code frame) and the `FAIL file` lines.
func jest(f *found) {
	for i, l := range f.lines {
		if !strings.Contains(l, "●") {
			continue
		}
		m := jestBullet.FindStringSubmatch(l)
		if m == nil || m[2] == "Console" {
			continue
		}
		indent := indentOf(m[1])
		lines := []int{i}
		msg, at := "", false
		for j := i + 1; j < len(f.lines); j++ {
			t := f.lines[j]
			if jestBullet.MatchString(t) || (!blank(t) && indentOf(t) <= indent) {
				break
			}
			tt := strings.TrimSpace(t)
			switch {
			case blank(t):
				continue
			case codeFrame.MatchString(t):
				continue
			case strings.HasPrefix(tt, "at "):
				if at {
					continue
				}
				at = true
			}
			if msg == "" {
				msg = tt
			}
			lines = append(lines, j)
		}
		f.add(false, lines...)
		f.test(i, m[2], msg)
	}
	for i, l := range f.lines {
		if strings.Contains(l, "FAIL") && failLine.MatchString(l) && !vitestFail.MatchString(l) {
			f.add(false, i)
		}
	}
}

var (
	vitestFail = lazyre.New(`^\s*FAIL\s+\S+ > (.+)$`)
	vitestCode = lazyre.New(`^\s*\d*\s*\|`)
)

// vitest finds `FAIL file > suite > test` and the error lines under it, up
// to the ⎯ rule that ends each failure, without the code frame.
func vitest(f *found) {
	for i, l := range f.lines {
		if !strings.Contains(l, "FAIL") {
			continue
		}
		m := vitestFail.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		lines := []int{i}
		msg := ""
		for j := i + 1; j < len(f.lines) && j < i+40; j++ {
			t := f.lines[j]
			if strings.Contains(t, "⎯") || failLine.MatchString(t) {
				break
			}
			if blank(t) || vitestCode.MatchString(t) {
				continue
			}
			if msg == "" {
				msg = t
			}
			lines = append(lines, j)
		}
		f.add(false, lines...)
		f.test(i, m[1], msg)
	}
}

var (
	cargoHeader = lazyre.New(`^---- (\S+) stdout ----$`)
	cargoPanic  = lazyre.New(`^thread '([^']*)'(?: \(\d+\))? panicked at (.*)$`)
	cargoFailed = lazyre.New(`^test (\S+) \.\.\. FAILED$`)
	oldPanic    = lazyre.New(`^'(.*)', \S+:\d+:\d+$`)
)

// cargo finds `---- test stdout ----` with the panic under it (the
// message, left and right, without the backtrace) and `test X ... FAILED`.
func cargo(f *found) {
	for i, l := range f.lines {
		if !strings.Contains(l, "FAILED") && !strings.Contains(l, "panicked at") {
			continue
		}
		if m := cargoFailed.FindStringSubmatch(l); m != nil {
			f.test(i, m[1], "")
			continue
		}
		m := cargoPanic.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		lines := []int{i}
		for j := i - 1; j >= 0 && j >= i-2; j-- {
			if cargoHeader.MatchString(f.lines[j]) {
				lines = append(lines, j)
			}
		}
		msg := ""
		if om := oldPanic.FindStringSubmatch(m[2]); om != nil {
			msg = om[1]
		}
		for j := i + 1; j < len(f.lines); j++ {
			t := f.lines[j]
			if blank(t) || strings.HasPrefix(t, "stack backtrace:") || strings.HasPrefix(t, "note: ") {
				break
			}
			if msg == "" {
				msg = t
			}
			lines = append(lines, j)
		}
		f.add(false, lines...)
		if m[1] != "main" && m[1] != "<unnamed>" {
			f.test(i, m[1], msg)
		}
	}
}

var (
	tapNotOK = lazyre.New(`^(\s*)not ok \d+(?: -)? ?(.*?)(\s+#\s*(?i:todo|skip)\b.*)?$`)
	tapKey   = lazyre.New(`^(\s*)(\w+):\s*(.*)$`)
)

// tap finds `not ok` lines (not TODO or SKIP) with the message or error
// text of the YAML block under them.
func tap(f *found) {
	for i, l := range f.lines {
		if !strings.Contains(l, "not ok") {
			continue
		}
		m := tapNotOK.FindStringSubmatch(l)
		if m == nil || m[3] != "" {
			continue
		}
		lines := []int{i}
		msg := ""
		if i+1 < len(f.lines) && strings.TrimSpace(f.lines[i+1]) == "---" {
			keyIndent, keep := -1, false
			for j := i + 2; j < len(f.lines); j++ {
				t := f.lines[j]
				if strings.TrimSpace(t) == "..." {
					break
				}
				if km := tapKey.FindStringSubmatch(t); km != nil && (keyIndent < 0 || indentOf(km[1]) <= keyIndent) {
					keyIndent = indentOf(km[1])
					keep = km[2] == "message" || km[2] == "error"
					if v := strings.Trim(km[3], `'"`); keep && msg == "" && !strings.HasPrefix(v, "|") && !strings.HasPrefix(v, ">") {
						msg = v
					}
				} else if keep && msg == "" && !blank(t) {
					msg = strings.TrimSpace(t)
				}
				if keep && !blank(t) {
					lines = append(lines, j)
				}
			}
		}
		f.add(false, lines...)
		f.test(i, m[2], msg)
	}
}
