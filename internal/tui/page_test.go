package tui

import (
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/testsupport/storetest"
)

// TestPageShowsTheEndOfALongLine: the iteration page scrolled by its
// lines, so a line wrapping to more than a screen (an agent's final
// message in one paragraph) showed its first screenful only: neither G
// nor j reached the rest.
func TestPageShowsTheEndOfALongLine(t *testing.T) {
	st, run := storetest.Run(t, func(r *record.Run) { r.Status = record.RunFailed })
	m, err := New(st, run.RunID, false, Tools{})
	if err != nil {
		t.Fatal(err)
	}
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
