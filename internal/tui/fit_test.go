package tui

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestRunsFitColumns: at 80 columns the runs list drops whole columns,
// tokens first, and keeps the run id, status and cost uncut; wide enough,
// it keeps them all.
func TestRunsFitColumns(t *testing.T) {
	rows := [][]string{runsHeader,
		{"20261123-195646-515-task-21af", "fix the flaky calendar tests", "completed", "12 (3/9)", "1.2M/34.5k", "1h02m", "$12.34", "3d"},
		{"20261124-101010-001-task-0001", "x", "running", "1 (0/1)", "100/20", "5s", "$0.01", "1m"},
	}
	lines := fitColumns(rows, 78, runsDrop)
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > 78 {
			t.Errorf("line of %d columns: %q", n, l)
		}
	}
	for _, want := range []string{"20261123-195646-515-task-21af", "completed", "$12.34", "COST"} {
		if !strings.Contains(strings.Join(lines, "\n"), want) {
			t.Errorf("%q cut or dropped:\n%s", want, strings.Join(lines, "\n"))
		}
	}
	if strings.Contains(lines[0], "TOKENS") {
		t.Errorf("tokens kept before the cost:\n%s", strings.Join(lines, "\n"))
	}
	wide := fitColumns(rows, 200, runsDrop)
	for _, want := range []string{"TOKENS IN/OUT", "1.2M/34.5k", "fix the flaky calendar tests", "3d"} {
		if !strings.Contains(strings.Join(wide, "\n"), want) {
			t.Errorf("%q dropped at 200 columns:\n%s", want, strings.Join(wide, "\n"))
		}
	}
}
