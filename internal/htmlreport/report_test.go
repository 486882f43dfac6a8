package htmlreport

import (
	"bytes"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/view"
)

// fixture makes a run of n iterations whose outputs are long and hostile:
// markup, a script tag and terminal escapes, with a diff in every folder.
func fixture(t testing.TB, n int) (*store.Store, string) {
	t.Helper()
	st := &store.Store{Root: filepath.Join(t.TempDir(), ".loop")}
	run := store.NewRun("r1", `<b>bold</b> name`, 1)
	run.ValidationCommand = "go test ./..."
	if err := st.CreateRun(run); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("ok  \tpkg\t0.01s <tag>\n", 5000)
	cost := 0.02
	for i := 1; i <= n; i++ {
		status, code := record.StatusFail, 1
		if i == n {
			status, code = record.StatusPass, 0
		}
		it := record.IterationLog{ID: record.IterationID("r1", i), RunID: "r1", Iteration: i, Status: status, ExitCode: code,
			ValidationCommand: "go test ./...", Stdout: long + "\x1b[31m<script>alert(1)</script>\x1b[0m\n", StdoutBytes: int64(len(long)) + 40,
			Stderr: "exit status 1", DurationMs: int64(100 * i), FilesChanged: []string{"calc.go"}, CostUSD: &cost,
			Failures:  []record.Failure{{Test: "TestX<y>", Message: `got "<1>", want "2"`}},
			ToolCalls: []record.ToolCall{{ToolName: "Edit", ArgumentsSummary: `{"file":"<a href=x>"}`, ResultSummary: "ok"}},
			Agent:     &record.Agent{Phase: "implementation", FinalMessage: "I fixed <img src=x onerror=alert(1)>"}}
		if i == n {
			src := "estimated"
			it.CostSource = &src
		}
		line, err := record.Marshal(it)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.AppendLine(st.RunPath("r1", store.IterationsFile), line); err != nil {
			t.Fatal(err)
		}
		dir := st.IterationDir("r1", i)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		patch := "diff --git a/calc.go b/calc.go\n--- a/calc.go\n+++ b/calc.go\n@@ -1 +1 @@\n-<old>\n+<new>\n" + strings.Repeat("+x\n", 10000)
		if err := os.WriteFile(filepath.Join(dir, "changes.patch"), []byte(patch), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run.Merge = &record.Merge{RunBranch: "loop/r1", Target: "<main>", Strategy: "squash", Status: record.MergeFailed,
		Error: "conflict in <calc.go>", Conflicts: []string{"calc<1>.go"},
		Untracked: []string{"<env>"}, Unignored: []string{"<log>"}}
	if err := st.WriteRun(run); err != nil {
		t.Fatal(err)
	}
	ev := `{"ts":1,"run_id":"r1","type":"WATCHDOG_SIGNAL","iteration":2,"signal":"no_progress","message":"<same diff>"}`
	if err := store.AppendLine(st.RunPath("r1", store.EventsFile), []byte(ev)); err != nil {
		t.Fatal(err)
	}
	return st, "r1"
}

// TestReportEscapedAndSmall: a 100-iteration run with long outputs stays
// under 2 MB, every child-written text is escaped, and nothing in the page
// refers to anything outside it.
func TestReportEscapedAndSmall(t *testing.T) {
	st, id := fixture(t, 100)
	var b bytes.Buffer
	if err := Write(&b, st, id, Options{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	// The page names the store's files ~200 times: the bound is on the
	// rest, or a longer TMPDIR (macOS's /var/folders/...) fails it.
	root := html.EscapeString(st.Root)
	size := b.Len() - strings.Count(page, root)*len(root)
	t.Logf("report of 100 iterations with long outputs: %d bytes (%d without the store's path)", b.Len(), size)
	if size > 2<<20 {
		t.Errorf("report of 100 iterations is %d bytes without the store's path, want under 2 MB", size)
	}
	for _, bad := range []string{"<script>alert", "<img src=x", "<b>bold", "<a href=x>", "\x1b", "<tag>", "<same diff>", "<main>", "<calc", "<env>", "<log>"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q unescaped", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "TestX&lt;y&gt;", "WATCHDOG_SIGNAL", `id="iter-100"`,
		"showing the last 4000 characters", filepath.Join(st.IterationDir(id, 1), "validation.stdout"),
		"showing the first 6000 characters", "Cumulative cost", "(estimated)</h3>",
		"<code>loop/r1</code> into <code>&lt;main&gt;</code> (squash): failed", "conflict in &lt;calc.go&gt;", "<code>calc&lt;1&gt;.go</code>",
		"untracked files in the way: <code>&lt;env&gt;</code>", "un-ignored by the merge: <code>&lt;log&gt;</code>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// Self-contained: no src/href to another document, no url() or @import.
	external := regexp.MustCompile(`(?i)(src|href)\s*=\s*"(?:[a-z]+:|//)|url\(|@import`)
	if m := external.FindString(page); m != "" {
		t.Errorf("page refers outside itself: %q", m)
	}
	if n := strings.Count(page, "<script"); n != 1 {
		t.Errorf("%d script elements, want only the inline print helper", n)
	}
}

// TestReportControlBytes: a run's name, its files' names and a diff's
// content can hold control bytes (the agent names files, and may name the
// run); the page shows them as \x1b, never as the bytes (which drove a
// terminal reading the page with cat), in the report and the index.
func TestReportControlBytes(t *testing.T) {
	st := failedRun(t, "evil\x1b]0;T\x07name", "printf 'v\x1b[2J'", "name\x1b[31mred")
	dir := st.IterationDir("r1", 1)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	patch := "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -0,0 +1 @@\n+a\x1b]0;PWNED\x07b\x7f\tc\r\n"
	if err := os.WriteFile(filepath.Join(dir, "changes.patch"), []byte(patch), 0o644); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, st, "r1", Options{}); err != nil {
		t.Fatal(err)
	}
	infos, err := loadRuns(st)
	if err != nil {
		t.Fatal(err)
	}
	var idx bytes.Buffer
	if err := WriteIndex(&idx, infos, Options{}); err != nil {
		t.Fatal(err)
	}
	for name, page := range map[string]string{"report": b.String(), "index": idx.String()} {
		if i := strings.IndexFunc(page, func(r rune) bool { return (r < 0x20 && r != '\n' && r != '\t' && r != '\r') || r == 0x7f }); i >= 0 {
			t.Errorf("%s: a control byte %q at %d: %q", name, page[i], i, page[max(i-40, 0):min(i+40, len(page))])
		}
		if !strings.Contains(page, `evil\x1b]0;T\x07name`) {
			t.Errorf("%s: the name is not shown escaped", name)
		}
	}
	for _, want := range []string{`name\x1b[31mred`, `a\x1b]0;PWNED\x07b\x7f` + "\tc\r"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestIndex(t *testing.T) {
	st, _ := fixture(t, 2)
	var b bytes.Buffer
	infos, err := loadRuns(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteIndex(&b, infos, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `href="r1.html"`) || strings.Contains(b.String(), "<b>bold") {
		t.Errorf("index: %s", b.String())
	}
}

func loadRuns(st *store.Store) ([]view.RunInfo, error) {
	return view.LoadRuns(st, func(string, error) {})
}

// TestIndexTimeColumn: the index's time column is run.json's total, the
// agent's time plus the validation's, as the report's summary says; it
// was headed "Validation time".
func TestIndexTimeColumn(t *testing.T) {
	st, _ := fixture(t, 1)
	infos, err := loadRuns(st)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteIndex(&b, infos, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "<th>Time (agent + validation)</th>") || strings.Contains(b.String(), "Validation time") {
		t.Errorf("index's time column is not named as the total it shows:\n%s", b.String())
	}
}

// TestReportNamesOnOneLine: a name the agent gives a file, the run's name
// and the validation command are one line each: a newline in them shows
// as \n (a browser drew it as a space: "new\nline" read as "new line"),
// and a bidirectional override as \u202e, as in the terminal views.
func TestReportNamesOnOneLine(t *testing.T) {
	st := failedRun(t, "two\nlines\u202e", "make\ntest", "new\nline\u202etxt.go")
	var b bytes.Buffer
	if err := Write(&b, st, "r1", Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<code>new\nline\u202etxt.go</code>`, `<code>make\ntest</code>`, `two\nlines\u202e</span>`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.ContainsRune(b.String(), '\u202e') {
		t.Errorf("report holds a bidirectional override")
	}
}

// failedRun is a store holding run r1, named name, with one failed
// iteration validated by command that changed file: the names a hostile
// agent gives, for the tests of how the page shows them.
func failedRun(t *testing.T, name, command, file string) *store.Store {
	t.Helper()
	st := &store.Store{Root: filepath.Join(t.TempDir(), ".loop")}
	if err := st.CreateRun(store.NewRun("r1", name, 1)); err != nil {
		t.Fatal(err)
	}
	it := record.IterationLog{ID: record.IterationID("r1", 1), RunID: "r1", Iteration: 1, Status: record.StatusFail, ExitCode: 1,
		ValidationCommand: command, FilesChanged: []string{file}}
	line, err := record.Marshal(it)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.AppendLine(st.RunPath("r1", store.IterationsFile), line); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestPageNamesNeverTheIndex: `--all --dir` writes index.html and a page
// per run; a run named index had its page overwritten by the index, which
// linked to itself for it. No run's page is index.html, and no two runs
// share a page.
func TestPageNamesNeverTheIndex(t *testing.T) {
	seen := map[string]string{}
	for _, id := range []string{"index", "index.html", "Index", "a", "index.x", "_index"} {
		if store.ValidRunID(id) != nil {
			continue // no run has it
		}
		name := FileName(id)
		if name == "index.html" {
			t.Errorf("run %q gets the index's name", id)
		}
		if other, ok := seen[name]; ok {
			t.Errorf("runs %q and %q share %s", other, id, name)
		}
		seen[name] = id
	}
}
