package progress

import (
	"errors"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
)

func TestReadRecordsValidationNumbered(t *testing.T) {
	in := `{"type":"validation","command":"go test","exit_code":1,"stdout":"a","stderr":"","duration_ms":5,"files_changed":["x.go"]}
{"type":"step","command":"claude","exit_code":0}

{"type":"validation","command":"go test","exit_code":0,"stdout":"","stderr":"b","duration_ms":6,"files_changed":null}
{"type":"validation","command":"go test","exit_code":0,"timed_out":true,"stdout":"c","duration_ms":7}
`
	logs, err := ReadRecords(strings.NewReader(in), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 3 {
		t.Fatalf("%d records, want 3 (the step skipped)", len(logs))
	}
	for i, it := range logs {
		if it.Iteration != i+1 {
			t.Errorf("record %d numbered %d", i, it.Iteration)
		}
	}
	if logs[0].ValidationCommand != "go test" || logs[0].FilesChanged[0] != "x.go" || logs[1].Stderr != "b" {
		t.Errorf("fields not carried: %+v", logs[:2])
	}
	if logs[2].ExitCode != -1 {
		t.Errorf("timed out validation shows exit %d, want -1 as loop-record stores it", logs[2].ExitCode)
	}
}

func TestReadRecordsMixedAndBounded(t *testing.T) {
	var b strings.Builder
	for _, n := range []string{"4", "5", "6"} {
		b.WriteString(`{"iteration":` + n + `,"validation_command":"t","exit_code":1,"stdout":"it` + n + `"}` + "\n")
	}
	b.WriteString(`{"type":"validation","command":"t","exit_code":0,"stdout":"v"}`) // whole JSON, no newline
	logs, err := ReadRecords(strings.NewReader(b.String()), 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 2 || logs[0].Iteration != 6 || logs[1].Iteration != 7 || logs[1].Stdout != "v" {
		t.Errorf("got %+v, want iterations 6 and 7 (the validation after 6)", logs)
	}
}

func TestReadRecordsErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"{\"iteration\":1,\"exit_code\":0,\"validation_command\":\"t\"}\nnot json\n", "line 2: not JSON"},
		// A run's record (loop-view runs --json) is not an iteration that exited 0.
		{`{"schema_version":1,"run_id":"r","iteration":3,"validation_command":"t","status":"failed"}` + "\n", `line 1: field "exit_code": missing`},
		// nor is a final verification (loop-record verify)
		{`{"id":"r-verify-1","run_id":"r","iteration":3,"command":"make e2e","exit_code":0,"verification":"pass"}` + "\n", `line 1: field "validation_command": missing`},
		{`{"iteration":"one"}` + "\n", `line 1: field "iteration": wrong type`},
		{`{"validation_command":"t"}` + "\n", `line 1: field "iteration": missing`},
		{`{"type":"validation","command":"t"}` + "\n", `line 1: field "exit_code": missing`},
		{`{"type":"bogus"}` + "\n", `line 1: field "type": unknown record type "bogus"`},
		{"[1,2]\n", "line 1: not a JSON object"},
	} {
		_, err := ReadRecords(strings.NewReader(c.in), 5)
		var ie *record.InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want an InputError containing %q", c.in, err, c.want)
		}
	}
}

func TestReadRecordsTornTail(t *testing.T) {
	in := `{"iteration":1,"validation_command":"t","exit_code":1,"stdout":"one"}` + "\n" + `{"iteration":2,"exit_co`
	logs, err := ReadRecords(strings.NewReader(in), 5)
	if !errors.Is(err, ErrTornTail) || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err = %v, want ErrTornTail at line 2", err)
	}
	if len(logs) != 1 || logs[0].Iteration != 1 {
		t.Errorf("records before the torn line: %+v", logs)
	}
}
