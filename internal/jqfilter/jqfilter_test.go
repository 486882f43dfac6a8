package jqfilter

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/view/jsonobj"
)

var records = []string{
	`{"iteration":1,"status":"fail","exit_code":1,"duration_ms":2341,"stdout":"FAIL x\n","stderr":"","files_changed":["a.go"],"tool_calls":[{"tool_name":"Edit","is_error":false}],"agent":{"phase":"implement","exit_code":0},"cost_usd":null}`,
	`{"iteration":2,"status":"pass","exit_code":0,"duration_ms":10,"stdout":"ok\n","stderr":"warn","files_changed":[],"tool_calls":[],"agent":null,"cost_usd":0.25,"a b":1}`,
	`{"iteration":3,"status":"error","exit_code":-1,"duration_ms":99999,"stdout":"","error":"timed out","files_changed":["x","y"],"tool_calls":[{"tool_name":"Bash","is_error":true}]}`,
}

// Every expression gives the same results on the fields it names as on the
// whole record: the analysis never leaves out a field that matters.
var exprs = []string{
	`.exit_code != 0`, `.exit_code != 0 and .duration_ms > 1000`, `.status`, `.agent.phase`, `.files_changed | length`,
	`.tool_calls[] | select(.is_error) | .tool_name`, `select(.exit_code == 0)`, `select(.exit_code == 0) | .iteration`,
	`.`, `keys`, `length`, `to_entries | map(.key)`, `has("error")`, `.["a b"]`, `{iteration, exit_code}`, `{"a b"}`,
	`[.iteration, .status]`, `"\(.iteration): \(.status)"`, `@json`, `tojson`, `. as $r | $r.status`, `.status as $s | .iteration`,
	`if .exit_code == 0 then . else .status end`, `if .exit_code == 0 then .iteration end`, `try error(.) catch .`,
	`reduce .files_changed[] as $f (0; . + 1)`, `reduce . as $r (0; $r.iteration)`, `.. | numbers`, `del(.stdout)`,
	`.iteration = 5`, `.stdout |= ascii_downcase`, `def f: .status; f`, `first(.files_changed[])`, `limit(1; .files_changed[])`,
	`any(.tool_calls[]; .is_error)`, `all(.files_changed[]; length > 0)`, `isempty(.tool_calls[])`, `.[.status]`,
	`to_entries[] | select(.key == "status") | .value`, `paths | length`, `getpath(["status"])`, `.iteration, .`,
	`(.iteration // .) | tostring`, `.error // "none"`, `not`, `type`, `{(.status): .iteration}`, `[.[] | numbers]`,
	`.stdout[0:3]`, `.files_changed[1:]`, `. as {status: $s} | $s`, `. as {$status} | $status`,
	`label $out | .iteration, break $out`, `[limit(2; .[])]`, `with_entries(select(.key == "iteration"))`, `@base64 "\(.status)"`,
	`.status | test("fa")`, `-.iteration`, `[.tool_calls[].tool_name] | join(",")`, `env | type`, `select(.stdout | contains("ok"))`,
}

func results(t *testing.T, f *Filter, v any) string {
	var b bytes.Buffer
	err := f.Each(v, func(r any) error { return Write(&b, r, false) })
	if err != nil {
		b.WriteString("error: " + err.Error())
	}
	return b.String()
}

func TestPartialDecodeGivesFullResults(t *testing.T) {
	for _, mode := range []Mode{Where, Transform} {
		for _, e := range exprs {
			f, err := Compile("--jq", e, mode)
			if err != nil {
				t.Fatalf("%s: %v", e, err)
			}
			for _, rec := range records {
				full, err := jsonobj.Full([]byte(rec))
				if err != nil {
					t.Fatal(err)
				}
				if f.All {
					continue
				}
				part, err := jsonobj.Project([]byte(rec), f.Fields)
				if err != nil {
					t.Fatal(err)
				}
				if mode == Where {
					m1, e1 := f.Match(full)
					m2, e2 := f.Match(part)
					if m1 != m2 || (e1 == nil) != (e2 == nil) {
						t.Errorf("where %s on %.40s: full %v %v, partial %v %v (fields %v)", e, rec, m1, e1, m2, e2, f.Fields)
					}
					continue
				}
				if a, b := results(t, f, full), results(t, f, part); a != b {
					t.Errorf("jq %s on %.40s:\nfull    %s\npartial %s (fields %v)", e, rec, a, b, f.Fields)
				}
			}
		}
	}
}

func TestFieldsOfSimpleFilters(t *testing.T) {
	for expr, want := range map[string]string{
		`.exit_code != 0`:                         "exit_code",
		`.exit_code != 0 and .duration_ms > 1000`: "duration_ms,exit_code",
		`.status`:                                "status",
		`select(.exit_code == 0) | .agent.phase`: "agent,exit_code",
		`.tool_calls[] | select(.is_error) | .tool_name`: "tool_calls",
	} {
		f, err := Compile("--jq", expr, Transform)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for k := range f.Fields {
			got = append(got, k)
		}
		if f.All || !sameSet(got, strings.Split(want, ",")) {
			t.Errorf("%s: all=%v fields=%v, want %s", expr, f.All, got, want)
		}
	}
	f, _ := Compile("--jq", `select(.exit_code == 0)`, Transform)
	if !f.All {
		t.Errorf("select(...) printed needs the whole record")
	}
	f, _ = Compile("--where", `select(.exit_code == 0)`, Where)
	if f.All {
		t.Errorf("select(...) as a --where needs only its fields")
	}
}

func sameSet(a, b []string) bool {
	m := map[string]bool{}
	for _, x := range a {
		m[x] = true
	}
	for _, x := range b {
		if !m[x] {
			return false
		}
	}
	return len(m) == len(b)
}

func TestCompileErrors(t *testing.T) {
	_, err := Compile("--where", ".exit_code !=", Where)
	var ce *CompileError
	if !errors.As(err, &ce) || ce.Offset != 13 || !strings.Contains(err.Error(), "unexpected EOF at offset 13") {
		t.Fatalf("parse error: %v", err)
	}
	_, err = Compile("--jq", "nosuchfn(1)", Transform)
	if !errors.As(err, &ce) || ce.Offset != -1 || !strings.Contains(err.Error(), "nosuchfn/1") {
		t.Fatalf("compile error: %v", err)
	}
	// jq builtins this per-record filter lacks say what to do instead
	for expr, want := range map[string]string{
		"[inputs]":           "pipe --json into jq -s",
		"input":              "pipe --json into jq -s",
		"keys_unsorted":      "use keys",
		"input_filename":     ".run_id names its run",
		"input_line_number":  "with no line number",
		"nosuchfn | keys[0]": "",
	} {
		_, err := Compile("--jq", expr, Transform)
		if err == nil || want != "" && !strings.HasSuffix(err.Error(), want) {
			t.Errorf("%s: %v, want it to end %q", expr, err, want)
		}
		if want == "" && err != nil && strings.Count(err.Error(), ":") != 2 {
			t.Errorf("%s: %v, want no hint", expr, err)
		}
	}
}

func TestRuntimeErrorAndRaw(t *testing.T) {
	f, err := Compile("--jq", `.status + 1`, Transform)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := jsonobj.Full([]byte(records[0]))
	if err := f.Each(v, func(any) error { return nil }); err == nil || !strings.Contains(err.Error(), "cannot add") {
		t.Fatalf("runtime error: %v", err)
	}
	var b bytes.Buffer
	Write(&b, "a\tb", true)
	Write(&b, "a\tb", false)
	Write(&b, map[string]any{"b": 1, "a": []any{nil, true}}, true)
	if b.String() != "a\tb\n\"a\\tb\"\n{\"a\":[null,true],\"b\":1}\n" {
		t.Fatalf("write: %q", b.String())
	}
}

func BenchmarkWhereExitCode(b *testing.B) {
	f, _ := Compile("--where", `.exit_code != 0`, Where)
	line := []byte(`{"iteration":1,"exit_code":1,"stdout":"` + strings.Repeat("ok  pkg/x  0.1s\n", 1600) + `","duration_ms":5}`)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		v, err := jsonobj.Project(line, f.Fields)
		if err != nil {
			b.Fatal(err)
		}
		if ok, err := f.Match(v); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
