package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A report field may quote the agent (a rate limit's evidence): each
// control character becomes a space, so that the row keeps its columns
// and cat shows it without obeying it.
func TestReportFieldsPlain(t *testing.T) {
	path := filepath.Join(t.TempDir(), ReportFile)
	if err := AppendReport(path, []string{"1", "RATE_LIMITED", "limit: \x1b]0;PWN\x07\t\u009b2J\u202e\r\nend"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if want := "1\tRATE_LIMITED\tlimit:  ]0;PWN   2J   end"; len(rows) != 2 || rows[1] != want {
		t.Errorf("rows %q, want the header and %q", rows, want)
	}
}
