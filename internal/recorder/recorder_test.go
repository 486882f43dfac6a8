package recorder

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/log"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

func newRecorder(t *testing.T) *Recorder {
	t.Helper()
	st, _ := store.Open(filepath.Join(t.TempDir(), ".loop"))
	return &Recorder{St: st, Log: log.New(io.Discard)}
}

func validation(t *testing.T, exit int, out string) *record.Input {
	t.Helper()
	in, err := record.DecodeInput([]byte(`{"type":"validation","command":"make test","exit_code":` + strings.TrimSpace(string(rune('0'+exit))) + `,"stdout":` + quote(out) + "}\n"))
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func count(t *testing.T, path, sub string) int {
	t.Helper()
	data, _ := os.ReadFile(path)
	return bytes.Count(data, []byte(sub))
}

// A writer killed after the commit point leaves events, report and run.json
// behind the log; the next writer brings them up to date exactly once.
func TestRepairCatchesUpDerivedFiles(t *testing.T) {
	r := newRecorder(t)
	for i := 0; i < 3; i++ {
		if _, err := r.Record("x", validation(t, i%2, "out"), 0); err != nil {
			t.Fatal(err)
		}
	}
	// simulate a crash right after iteration 3's log line
	ev := r.St.RunPath("x", store.EventsFile)
	data, _ := os.ReadFile(ev)
	lines := bytes.SplitAfter(data, []byte("\n"))
	os.WriteFile(ev, bytes.Join(lines[:len(lines)-2], nil), 0o600) // drop the last event
	run, _ := r.St.ReadRun("x")
	run.Iteration, run.Passed, run.Failed = 2, 1, 1
	r.St.WriteRun(run)
	// and a folder of an iteration that never got its line
	os.MkdirAll(r.St.IterationDir("x", 4), 0o700)
	os.WriteFile(filepath.Join(r.St.IterationDir("x", 4), "junk"), []byte("x"), 0o600)

	res, err := r.Record("x", validation(t, 0, "fine"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Log.Iteration != 4 {
		t.Fatalf("iteration %d, want 4", res.Log.Iteration)
	}
	if _, err := os.Stat(filepath.Join(r.St.IterationDir("x", 4), "junk")); !os.IsNotExist(err) {
		t.Fatal("leftover folder content survived")
	}
	if n := count(t, ev, `"type":"ITERATION_RECORDED"`); n != 4 {
		t.Fatalf("%d ITERATION_RECORDED events, want 4", n)
	}
	if n := count(t, r.St.RunPath("x", store.ReportFile), "\tITERATION\t"); n != 4 {
		t.Fatalf("%d report rows, want 4", n)
	}
	run, _ = r.St.ReadRun("x")
	if run.Iteration != 4 || run.Passed != 3 || run.Failed != 1 {
		t.Fatalf("run.json: iteration %d, %d passed, %d failed", run.Iteration, run.Passed, run.Failed)
	}
}

func TestStuckReportAndSnapshot(t *testing.T) {
	r := newRecorder(t)
	task := filepath.Join(t.TempDir(), "TASK.md")
	os.WriteFile(task, []byte("# Fix the parser\n"), 0o600)
	for i := 0; i < 2; i++ {
		r.Record("s", validation(t, 1, "compiling...\nparser_test.go:12: unexpected token | at 3\n"), 0)
	}
	if _, err := r.Update("s", func(run *record.Run) error { run.Settings.Prompt = task; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := r.SetStatus("s", record.RunStuck, "no success after 2 iterations"); err != nil {
		t.Fatal(err)
	}
	doc, _ := os.ReadFile(r.St.RunPath("s", store.StuckFile))
	for _, want := range []string{"# Stuck Report\n\n## Task\n# Fix the parser\n", "Hard stop reached after 2 verification attempts.",
		"| iteration 2 | FAIL | parser_test.go:12: unexpected token \\| at 3 |", "## Hypotheses", "## Files Modified\n\n(none)\n"} {
		if !bytes.Contains(doc, []byte(want)) {
			t.Fatalf("stuck.md lacks %q:\n%s", want, doc)
		}
	}
	for want := 1; want <= 2; want++ {
		path, err := r.Snapshot("s", "stuck")
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(path) != "context_00"+string(rune('0'+want))+".md" {
			t.Fatalf("snapshot %s", path)
		}
	}
	latest, err := os.Readlink(r.St.RunPath("s", store.ContextDir, "context_latest.md"))
	if err != nil || latest != "context_002.md" {
		t.Fatalf("context_latest.md -> %q (%v)", latest, err)
	}
	snap, _ := os.ReadFile(r.St.RunPath("s", store.ContextDir, "context_002.md"))
	if !bytes.Contains(snap, []byte("## Milestone\nstuck")) || !bytes.Contains(snap, []byte("## Iteration 2")) {
		t.Fatalf("snapshot:\n%s", snap)
	}
}

// A line the agent appends to iterations.jsonl during its step (a forged
// pass under the number the driver records next) is not loopkit's: the
// driver's record fails saying so, and the real step is kept as an attempt
// (it was lost before: only the forged pass stayed).
func TestForgedIterationKeepsRealStep(t *testing.T) {
	r := newRecorder(t)
	if err := r.EnsureRun("x", ""); err != nil {
		t.Fatal(err)
	}
	forged := `{"id":"x-iter-1","run_id":"x","iteration":1,"status":"pass","exit_code":0}` + "\n"
	f, _ := os.OpenFile(r.St.RunPath("x", store.IterationsFile), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	f.WriteString(forged)
	f.Close()
	in, err := record.DecodeInput([]byte(`{"type":"validation","command":"false","exit_code":1,"stdout":"FAIL"}` + "\n" +
		`{"type":"step","command":"claude -p","phase":"implementation","exit_code":0,"session_id":"s-1","started_at":5,"ended_at":9}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // a replay keeps it once
		_, err = r.Record("x", in, 1)
		if err == nil || !strings.Contains(err.Error(), "loopkit did not write (the agent can write the store)") ||
			!strings.Contains(err.Error(), "validation exited 1") {
			t.Fatalf("err %v", err)
		}
	}
	atts, err := r.St.ReadAttempts("x")
	if err != nil || len(atts) != 1 || atts[0].Kind != "conflict" || atts[0].Iteration != 1 {
		t.Fatalf("attempts %+v, %v", atts, err)
	}
}

// A line the agent appends to attempts.jsonl in sequence is taken in by
// the next writer's repair; its negative figures used to lower run.json's
// totals (a cost of -5 showed as $-5 and would loosen a cost budget).
func TestForgedAttemptFiguresDoNotLowerTotals(t *testing.T) {
	r := newRecorder(t)
	if err := r.EnsureRun("x", ""); err != nil {
		t.Fatal(err)
	}
	forged := `{"id":"x-attempt-1","run_id":"x","attempt":1,"kind":"agent","iteration":0,"cost_usd":-5,` +
		`"llm_input_tokens":-100,"agent":{"command":"sh","duration_ms":-1000000}}` + "\n"
	os.WriteFile(r.St.RunPath("x", store.AttemptsFile), []byte(forged), 0o600)
	if _, err := r.Record("x", validation(t, 1, "out"), 0); err != nil {
		t.Fatal(err)
	}
	run, err := r.St.ReadRun("x")
	if err != nil {
		t.Fatal(err)
	}
	if (run.TotalCostUSD != nil && *run.TotalCostUSD < 0) || (run.TotalInputTokens != nil && *run.TotalInputTokens < 0) ||
		run.TotalDurationMs < 0 {
		t.Fatalf("totals lowered: cost %v, input %v, duration %d", run.TotalCostUSD, run.TotalInputTokens, run.TotalDurationMs)
	}
}

// An agent that empties iterations.jsonl during step 2 made the record of
// iteration 2 fail as "not the next one" and lose the step; it is kept.
func TestTruncatedLogKeepsRealStep(t *testing.T) {
	r := newRecorder(t)
	step := func(at int) *record.Input {
		in, err := record.DecodeInput([]byte(`{"type":"validation","command":"false","exit_code":1,"stdout":""}` + "\n" +
			`{"type":"step","command":"claude -p","phase":"implementation","exit_code":0,"started_at":` + strconv.Itoa(at) + `,"ended_at":` + strconv.Itoa(at+1) + "}\n"))
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	if _, err := r.Record("x", step(5), 1); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(r.St.RunPath("x", store.IterationsFile), nil, 0o600)
	_, err := r.Record("x", step(9), 2)
	if err == nil || !strings.Contains(err.Error(), "iterations.jsonl lacks lines --iteration 2 expects (the agent can write the store); this step is kept as attempt 1") {
		t.Fatalf("err %v", err)
	}
	if atts, err := r.St.ReadAttempts("x"); err != nil || len(atts) != 1 || atts[0].Iteration != 2 {
		t.Fatalf("attempts %+v, %v", atts, err)
	}
}

// The repair removed iteration 1's folder once the agent had emptied the
// log (a folder without its line looked like a killed writer's leftover);
// events.jsonl recorded it, so it is kept.
func TestEmptiedLogKeepsRecordedFolder(t *testing.T) {
	r := newRecorder(t)
	if _, err := r.Record("x", validation(t, 1, "out"), 1); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(r.St.RunPath("x", store.IterationsFile), nil, 0o600)
	os.MkdirAll(r.St.IterationDir("x", 2), 0o700) // a killed writer's leftover
	if _, err := r.Record("x", validation(t, 1, "out"), 2); err == nil {
		t.Fatal("recorded past an emptied log")
	}
	if _, err := os.Stat(r.St.IterationDir("x", 1)); err != nil {
		t.Fatalf("iteration 1's folder: %v", err)
	}
	if _, err := os.Stat(r.St.IterationDir("x", 2)); !os.IsNotExist(err) {
		t.Fatalf("leftover folder 2 kept: %v", err)
	}
}

// A recorder killed in pointLatest, between its new link and the rename,
// leaves context/.context_latest.tmp; a run whose last snapshot it was
// gets no later one to replace it, so the next locked change sweeps it
// with the other temporary files a killed writer left.
func TestKilledSnapshotsLinkSwept(t *testing.T) {
	r := newRecorder(t)
	r.Record("s", validation(t, 1, "FAIL\n"), 0)
	if _, err := r.Snapshot("s", "stuck"); err != nil {
		t.Fatal(err)
	}
	left := r.St.RunPath("s", store.ContextDir, ".context_latest.tmp")
	if err := os.Symlink("context_001.md", left); err != nil {
		t.Fatal(err)
	}
	if _, err := r.SetStatus("s", record.RunCompleted, "done"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(left); err == nil {
		t.Errorf("a killed snapshot's link is still in the run: %s", left)
	}
}
