package htmlreport

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/view"
)

// TestLongUnbrokenNamesFit: a run name, validation command, changed file
// and failing test longer than the window, with no space to break at,
// wrap inside the page (in the browser, a 600-pixel window) instead of
// widening it: past its edge they were cut off in print and in a
// screenshot, and the whole page scrolled sideways. The index too, and
// the printed page, where every <details> (a tool's name) is open.
func TestLongUnbrokenNamesFit(t *testing.T) {
	b := startBrowser(t)
	name, cmd, file := strings.Repeat("N", 300), "go test -run "+strings.Repeat("A", 400), strings.Repeat("dir/", 80)+"x.go"
	st := failedRun(t, name, cmd, file)
	it := record.IterationLog{ID: record.IterationID("r1", 2), RunID: "r1", Iteration: 2, Status: record.StatusFail, ExitCode: 1,
		ValidationCommand: cmd, Failures: []record.Failure{{Test: "Test" + strings.Repeat("B", 300), Message: strings.Repeat("m", 300)}},
		Agent:     &record.Agent{Phase: "implementation", FinalMessage: strings.Repeat("w", 300)},
		ToolCalls: []record.ToolCall{{ToolName: "mcp__" + strings.Repeat("t", 300), ArgumentsSummary: strings.Repeat("a", 300), ResultSummary: "ok"}}}
	line, err := record.Marshal(it)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.AppendLine(st.RunPath("r1", store.IterationsFile), line); err != nil {
		t.Fatal(err)
	}
	var run, index bytes.Buffer
	if err := Write(&run, st, "r1", Options{}); err != nil {
		t.Fatal(err)
	}
	runs := []view.RunInfo{{Run: &record.Run{RunID: "r1", Name: name, Status: record.RunFailed, ValidationCommand: cmd}}}
	if err := WriteIndex(&index, runs, Options{}); err != nil {
		t.Fatal(err)
	}
	for page, html := range map[string][]byte{"report": run.Bytes(), "index": index.Bytes()} {
		path := filepath.Join(t.TempDir(), page+".html")
		if err := os.WriteFile(path, html, 0o644); err != nil {
			t.Fatal(err)
		}
		v, err := b.load("file://"+path, 600)
		if err != nil {
			t.Fatal(err)
		}
		if v.Width > 600 {
			t.Errorf("the %s page is %.0f pixels wide in a 600-pixel window", page, v.Width)
		}
		if _, w, err := b.printed("file://" + path); err != nil || w > 600 {
			t.Errorf("the printed %s page (its details open) is %.0f pixels wide in 600 (%v)", page, w, err)
		}
	}
}
