package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/testsupport/storetest"
)

// TestDescribeScrollsWithinItsLines: in the Describe view j stops at the
// end (it scrolled on into a blank screen, and k had to undo every extra
// press), and the keys the help lists for a run, g/G ends and space/b
// page, work there too.
func TestDescribeScrollsWithinItsLines(t *testing.T) {
	m := failedRunModel(t)
	m.key("d")
	m.h = 1000 // every line on one screen
	all := strings.Split(m.view(), "\n")
	var lines []string
	for _, l := range all[1 : len(all)-1] { // between the title and status lines
		if l != "" {
			lines = append(lines, l)
		}
	}
	m.h = 8
	if len(lines) < 2*m.bodyHeight() {
		t.Fatalf("describe has %d lines, too few to scroll in %d", len(lines), m.bodyHeight())
	}
	first, last := lines[0], lines[len(lines)-1]
	body := func() string {
		v := strings.Split(m.view(), "\n")
		return strings.Join(v[1:len(v)-1], "\n")
	}
	m.key("G")
	if !strings.Contains(body(), last) {
		t.Errorf("G does not show the last line %q:\n%s", last, body())
	}
	for range 100 {
		m.key("j")
	}
	m.key("k")
	if b := body(); !strings.Contains(b, lines[len(lines)-2]) || strings.Contains(b, last) {
		t.Errorf("j past the end then k does not move up one line from the end:\n%s", b)
	}
	m.key("g")
	if !strings.HasPrefix(body(), first) {
		t.Errorf("g does not show the first line %q:\n%s", first, body())
	}
	m.key("space")
	if b := body(); strings.Contains(b, first) || !strings.Contains(b, lines[m.bodyHeight()-1]) {
		t.Errorf("space does not page down, keeping one line:\n%s", b)
	}
	m.key("b")
	if !strings.HasPrefix(body(), first) {
		t.Errorf("b does not page back to the top:\n%s", body())
	}
}

// TestPageShowsTheEndOfALongLine: the iteration page scrolled by its
// lines, so a line wrapping to more than a screen (an agent's final
// message in one paragraph) showed its first screenful only: neither G
// nor j reached the rest.
func TestPageShowsTheEndOfALongLine(t *testing.T) {
	m := failedRunModel(t)
	m.page = []row{{text: "[1] make test — exit 1"}, {}, {text: "  " + strings.Repeat("word ", 1000) + "THE-END"}, {text: "LAST-LINE"}}
	m.screen, m.pageSkip = pageScreen, 0
	m.key("G")
	if v := m.view(); !strings.Contains(v, "THE-END") || !strings.Contains(v, "LAST-LINE") {
		t.Errorf("G does not show the end of the page:\n%s", v)
	}
	m.key("g")
	seen := false
	for range 200 {
		m.key("j")
		seen = seen || strings.Contains(m.view(), "THE-END")
	}
	if !seen {
		t.Errorf("j never scrolls to the end of the long line")
	}
	m.key("k")
	if v := m.view(); !strings.Contains(v, "THE-END") {
		t.Errorf("j past the end then k leaves the end:\n%s", v)
	}
}

// failedRunModel is the view opened on a failed run.
func failedRunModel(t *testing.T) *Model {
	t.Helper()
	st, run := storetest.Run(t, func(r *record.Run) { r.Status = record.RunFailed })
	m, err := New(st, run.RunID, false, Tools{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestHelpScrollsOnAShortScreen: on a screen shorter than the help (a
// split pane) its last keys were out of reach, as any key closed it; j
// and space now scroll it there, and another key still closes it.
func TestHelpScrollsOnAShortScreen(t *testing.T) {
	m := failedRunModel(t)
	m.h = 8
	press := func(k string) { m.Update(tea.KeyPressMsg{Code: []rune(k)[0], Text: k}) }
	press("?")
	for range 30 {
		press("j")
	}
	if v := m.view(); !strings.Contains(v, "iteration page") || !strings.Contains(v, "esc back") {
		t.Errorf("the help's last keys are out of reach on a short screen:\n%s", v)
	}
	press("x")
	if strings.Contains(m.view(), "esc back") {
		t.Errorf("another key does not close the help:\n%s", m.view())
	}
}
