package view

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

func logLine(n, code int, status string) *Record {
	raw, _ := json.Marshal(map[string]any{"iteration": n, "validation_command": "go test\x1b[2J ./...", "exit_code": code,
		"status": status, "duration_ms": 12, "files_changed": []string{"a.go"}, "stdout": strings.Repeat("é", 300)})
	return &Record{Raw: raw}
}

func TestLogsColourAndAlignment(t *testing.T) {
	var b bytes.Buffer
	v := &Logs{W: &b, Style: Style{Color: true, Align: true}, Width: 2}
	for _, r := range []*Record{logLine(1, 0, "pass"), logLine(2, 1, "fail"), logLine(10, -1, "error")} {
		if err := v.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	want := green + `[1]  go test\x1b[2J ./... — exit 0 — 12ms — 1 file` + reset + "\n" +
		red + `[2]  go test\x1b[2J ./... — exit 1 — 12ms — 1 file` + reset + "\n" +
		yellow + `[10] go test\x1b[2J ./... — exit -1 — 12ms — 1 file` + reset + "\n"
	if b.String() != want {
		t.Fatalf("got\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	(&Logs{W: &b}).Write(logLine(1, 0, "pass"))
	if strings.Contains(b.String(), "\x1b") || !strings.HasPrefix(b.String(), "[1] go") {
		t.Fatalf("plain: %q", b.String())
	}
}

// The calls past --max-tool-calls are counted under the listed ones: a
// Codex step of 1403 calls listed 1000 and said no more.
func TestLogsCountDroppedCalls(t *testing.T) {
	raw, _ := json.Marshal(map[string]any{"iteration": 1, "validation_command": "make", "exit_code": 1, "status": "fail",
		"tool_calls": []any{map[string]any{"tool_name": "command_execution", "arguments_summary": "echo"}},
		"agent":      map[string]any{"command": "codex exec", "exit_code": 0, "tool_calls_dropped": 403}})
	var b bytes.Buffer
	if err := (&Logs{W: &b, Verbose: true}).Write(&Record{Raw: raw}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "    command_execution ok: echo\n    … 403 more tool calls, not kept (--max-tool-calls)\n") {
		t.Fatalf("logs -v:\n%s", b.String())
	}
}

func TestOutputCutsByCharacters(t *testing.T) {
	var b bytes.Buffer
	if err := (&Output{W: &b, RunID: "r"}).Write(logLine(3, 1, "fail")); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if lines[0] != "## Iteration 3 — Exit 1 — 12ms" || lines[1] != strings.Repeat("é", 200) ||
		lines[2] != "[... more: loop-view output r 3 --full]" {
		t.Fatalf("output: %q", b.String())
	}
}

func TestDescribeJSONKeepsRunJSON(t *testing.T) {
	st := &store.Store{Root: "/s"}
	ri := RunInfo{Run: &record.Run{RunID: "r"}, Raw: []byte(`{"run_id":"r","future_field":[1],"status":"running"}`)}
	out, err := DescribeJSON(ri, RunPaths(st, "r"), true)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"run_id":"r","future_field":[1],"status":"running","paths":{"run_dir":"/s/runs/r",`
	if !strings.HasPrefix(string(out), want) || !strings.HasSuffix(string(out), `"iterations_dir":"/s/runs/r/iterations"},"live":true,"interrupted":false}`) {
		t.Fatalf("describe json: %s", out)
	}
}

func TestHumanForms(t *testing.T) {
	for _, c := range [][2]string{{Human(950), "950"}, {Human(1000), "1k"}, {Human(1_250_000), "1.2M"},
		{Millis(850), "850ms"}, {Millis(12_340), "12.3s"}, {Millis(3_725_000), "1h02m"}} {
		if c[0] != c[1] {
			t.Errorf("got %q want %q", c[0], c[1])
		}
	}
}

// A stored cost says where it came from: an estimate is marked, a cost the
// agent never reported is "unknown", older records keep "-".
func TestCostOf(t *testing.T) {
	c, est, rep, unk := 0.5, "estimated", "reported", "unknown"
	for _, tc := range []struct {
		c    *float64
		src  *string
		want string
	}{
		{&c, &rep, "$0.50"}, {&c, &est, "$0.50 (estimated)"}, {nil, &unk, "unknown"}, {nil, nil, "-"}, {&c, nil, "$0.50"},
	} {
		if got := CostOf(tc.c, tc.src); got != tc.want {
			t.Errorf("CostOf(%v, %v) = %q, want %q", tc.c, tc.src, got, tc.want)
		}
	}
}

// An agent stopped after giving its result (Gemini CLI lingers) did its
// work: the line says so, in no alarm colour.
func TestAgentStoppedAfterResult(t *testing.T) {
	code := -1
	ag := &record.Agent{ExitCode: &code, KilledAfterResult: true, Completed: true}
	if got := agentLine(ag); got != "agent: stopped after its result (it did not exit)" {
		t.Fatalf("line %q", got)
	}
	if c := agentColor(ag); c != "" {
		t.Fatalf("colour %q", c)
	}
	ag.KilledAfterResult = false
	if got := agentLine(ag); got != "agent: did not exit by itself" || agentColor(ag) != red {
		t.Fatalf("plain kill: %q", got)
	}
}
