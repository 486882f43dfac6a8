package jqfilter

import (
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/view/jsonobj"
)

// FuzzPartialDecode: for any expression that compiles, running it on only
// the fields the analysis names gives what it gives on the whole record.
// Expressions that never end or differ from run to run are skipped.
func FuzzPartialDecode(f *testing.F) {
	for _, e := range exprs {
		f.Add(e)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		for _, bad := range []string{"range", "repeat", "recurse", "while", "until", "..", "now", "input", "debug",
			"stderr", "halt", "env", "ENV", "limit", "$__", "splits", "combinations", "walk", "infinite", "pow", "exp", "log", "@sh", "ltrimstr", "tojson", "@json", "*", "implode"} {
			if strings.Contains(expr, bad) {
				return
			}
		}
		if len(expr) > 80 {
			return
		}
		for _, mode := range []Mode{Where, Transform} {
			fl, err := Compile("--jq", expr, mode)
			if err != nil || fl.All {
				return
			}
			for _, rec := range records {
				full, _ := jsonobj.Full([]byte(rec))
				part, err := jsonobj.Project([]byte(rec), fl.Fields)
				if err != nil {
					t.Fatal(err)
				}
				if mode == Where {
					m1, e1 := fl.Match(full)
					m2, e2 := fl.Match(part)
					if m1 != m2 || (e1 == nil) != (e2 == nil) {
						t.Fatalf("where %q on %.40s: full %v %v, partial %v %v (fields %v)", expr, rec, m1, e1, m2, e2, fl.Fields)
					}
					continue
				}
				if a, b := results(t, fl, full), results(t, fl, part); a != b {
					t.Fatalf("jq %q on %.40s:\nfull    %s\npartial %s (fields %v)", expr, rec, a, b, fl.Fields)
				}
			}
		}
	})
}
