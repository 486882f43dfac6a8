package view

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/jqfilter"
)

func writeLog(t *testing.T, lines ...string) string {
	path := filepath.Join(t.TempDir(), "iterations.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func iterations(t *testing.T, q *Query, path string) (string, error) {
	var got []string
	_, _, err := q.Run(path, func(rec *Record) error {
		got = append(got, fmt.Sprint(Iteration(rec.Raw)))
		return nil
	})
	return strings.Join(got, ","), err
}

func TestQuerySelects(t *testing.T) {
	var lines []string
	for i := 1; i <= 9; i++ {
		lines = append(lines, fmt.Sprintf(`{"iteration":%d,"exit_code":%d,"stdout":"x"}`, i, i%2))
	}
	lines = append(lines, `{"iteration":10,"exit`) // torn
	path := writeLog(t, lines...)
	where, _ := jqfilter.Compile("--where", ".exit_code != 0", jqfilter.Where)
	for _, c := range []struct {
		q    Query
		want string
	}{
		{Query{}, "1,2,3,4,5,6,7,8,9"},
		{Query{Filters: []Filter{where}}, "1,3,5,7,9"},
		{Query{Filters: []Filter{where}, Last: 2}, "7,9"},
		{Query{Last: 3}, "7,8,9"},
		{Query{Iteration: 4}, "4"},
		{Query{Iteration: 4, Filters: []Filter{where}}, ""},
	} {
		got, err := iterations(t, &c.q, path)
		if err != nil || got != c.want {
			t.Errorf("%+v: got %q %v, want %q", c.q, got, err, c.want)
		}
	}
	if _, err := iterations(t, &Query{Iteration: 10}, path); !errors.Is(err, ErrNoSuchIteration) {
		t.Errorf("torn iteration 10 found: %v", err)
	}
}

// A line that is not JSON and a record a filter fails on are reported and
// skipped; the rest is still shown.
func TestQueryReportsBadRecords(t *testing.T) {
	path := writeLog(t, `{"iteration":1,"stdout":"a"}`, `{"iteration":2,"std`, `{"iteration":3,"stdout":5}`, `{"iteration":4,"stdout":"b"}`, "")
	f, _ := jqfilter.Compile("--where", `.stdout | test("a|b")`, jqfilter.Where)
	var errs []string
	q := &Query{Filters: []Filter{f}, OnError: func(rec *Record, err error) {
		errs = append(errs, fmt.Sprintf("%d/%d: %v", rec.Line, Iteration(rec.Raw), err))
	}}
	got, err := iterations(t, q, path)
	if err != nil || got != "1,4" || len(errs) != 2 || !strings.HasPrefix(errs[0], "2/0: line 2:") ||
		!strings.HasPrefix(errs[1], `3/3: --where ".stdout | test(\"a|b\")": `) {
		t.Fatalf("got %q %v, errors %q", got, err, errs)
	}
}

// In iterations.jsonl (Numbered) a line that is no JSON object, or has no
// iteration number, is named as such, not as "iteration 0 after iteration
// 3: edited by hand" (a crash's garbage is no line copied or moved).
func TestQueryNumberedNamesGarbage(t *testing.T) {
	path := writeLog(t, `{"iteration":1}`, "\x00\xffgarbage", `{"stdout":"x"}`, `{"iteration":2}`, `{"iteration":2}`, "")
	var errs []string
	q := &Query{Numbered: true, OnError: func(rec *Record, err error) {
		errs = append(errs, err.Error())
	}}
	got, err := iterations(t, q, path)
	want := []string{"line 2: not a JSON object", `line 3: no "iteration" number`,
		"line 5: iteration 2 after iteration 2: the log was edited by hand (a line copied or moved)"}
	if err != nil || got != "1,2" || !slices.Equal(errs, want) {
		t.Fatalf("got %q %v, errors %q, want %q", got, err, errs, want)
	}
}

// An expression that reads no field still sees the record as an object:
// `--where .` keeps every record and `--jq type` prints "object" (both saw
// null when nothing was decoded, as `--jq not` printed true).
func TestQueryNoFieldsSeesObject(t *testing.T) {
	path := writeLog(t, `{"iteration":1,"exit_code":0}`, `{"iteration":2,"exit_code":1}`, "")
	for _, expr := range []string{".", `type == "object"`, "if . then true else false end", "not | not"} {
		f, err := jqfilter.Compile("--where", expr, jqfilter.Where)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := iterations(t, &Query{Filters: []Filter{f}}, path); err != nil || got != "1,2" {
			t.Errorf("--where %q: got %q %v, want 1,2", expr, got, err)
		}
	}
	jq, _ := jqfilter.Compile("--jq", "type", jqfilter.Transform)
	q := &Query{Need: jq.Fields, NeedAll: jq.All}
	var got []string
	_, _, err := q.Run(path, func(rec *Record) error {
		return jq.Each(rec.Value, func(v any) error { got = append(got, fmt.Sprint(v)); return nil })
	})
	if err != nil || strings.Join(got, ",") != "object,object" {
		t.Errorf("--jq type: got %q %v, want object,object", got, err)
	}
}
