package columns

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/view"
)

func TestRunsAlignedWithHeader(t *testing.T) {
	cost, in := 0.5, int64(12345)
	now := time.UnixMilli(1_000_000_000)
	runs := []view.RunInfo{
		{Run: &record.Run{RunID: "a-long-run-id", Name: "x", Status: "stuck", Iteration: 2, Failed: 2, CreatedAt: now.Add(-3 * time.Hour).UnixMilli()}},
		{Run: &record.Run{RunID: "b", Name: "y\x1b]0;title\x07", Status: "completed", TotalInputTokens: &in, TotalCostUSD: &cost, TotalDurationMs: 65_000, CreatedAt: now.UnixMilli()}},
	}
	var b bytes.Buffer
	if err := Runs(&b, view.Style{Align: true}, runs, now); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "RUN  ") || strings.Index(lines[1], "x  ") != strings.Index(lines[0], "NAME") {
		t.Fatalf("not aligned:\n%s", b.String())
	}
	if !strings.Contains(lines[1], "STUCK") || !strings.Contains(lines[1], "3h") || !strings.Contains(lines[2], `y\x1b]0;title\x07`) ||
		!strings.Contains(lines[2], "12.3k/-") || !strings.Contains(lines[2], "1m05s") || !strings.Contains(lines[2], "$0.50") {
		t.Fatalf("fields:\n%s", b.String())
	}
}

// TestRunsAlignedCJK: a run named in CJK (two cells a character) keeps
// the next column where the header has it.
func TestRunsAlignedCJK(t *testing.T) {
	now := time.UnixMilli(1_000_000_000)
	runs := []view.RunInfo{
		{Run: &record.Run{RunID: "a", Name: "修复登录", Status: "completed", CreatedAt: now.UnixMilli()}},
		{Run: &record.Run{RunID: "b", Name: "fix-login", Status: "running", CreatedAt: now.UnixMilli()}},
	}
	var b bytes.Buffer
	if err := Runs(&b, view.Style{Align: true}, runs, now); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	col := Cells(lines[0][:strings.Index(lines[0], "STATUS")])
	for _, l := range lines[1:3] {
		i := strings.Index(l, "completed")
		if i < 0 {
			i = strings.Index(l, "running")
		}
		if i < 0 || Cells(l[:i]) != col {
			t.Fatalf("the status column moved after a CJK name:\n%s", b.String())
		}
	}
}

// TestRunsColouredAligned: colour escapes take no columns, so coloured and
// plain statuses line up (a tabwriter counts the escape bytes).
func TestRunsColouredAligned(t *testing.T) {
	now := time.UnixMilli(1_000_000_000)
	runs := []view.RunInfo{
		{Run: &record.Run{RunID: "a", Name: "x", Status: "completed", CreatedAt: now.UnixMilli()}},
		{Run: &record.Run{RunID: "b", Name: "y", Status: "running", CreatedAt: now.UnixMilli()}},
	}
	var b bytes.Buffer
	if err := Runs(&b, view.Style{Align: true, Color: true}, runs, now); err != nil {
		t.Fatal(err)
	}
	plain := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(b.String(), "")
	lines := strings.Split(plain, "\n")
	col := strings.Index(lines[0], "ITER")
	for _, l := range lines[1:3] {
		if strings.Index(l, "0 (0/0)") != col {
			t.Fatalf("columns differ once colours are removed:\n%s", plain)
		}
	}
}
