package benchrun

import (
	"context"
	"os/exec"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func TestWords(t *testing.T) {
	for in, want := range map[string][]string{
		`a b  c`:                        {"a", "b", "c"},
		`sh -c 'x | y' "q\"r" \ ` + "z": {"sh", "-c", "x | y", `q"r`, " z"},
		`''`:                            {""},
	} {
		got, err := Words(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Words(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "  ", `a 'b`} {
		if _, err := Words(bad); err == nil {
			t.Errorf("Words(%q): no error", bad)
		}
	}
}

// The CPU a command's descendants burn is counted: a grandchild waited for
// by the shell, and one orphaned in the background (reparented here).
func TestRunCountsDescendants(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("orphans are counted on Linux only")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip(err)
	}
	burn := `i=0; while [ $i -lt 50000 ]; do i=$((i+1)); done`
	rep, err := Run(context.Background(), Config{Rounds: 3, Commands: [][]string{
		{"true"},
		{"sh", "-c", "sh -c '" + burn + "'"},
		{"sh", "-c", "(sh -c '" + burn + "') >/dev/null 2>&1 & exit 0"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	idle := rep.Results[0].CPU.Max
	for _, r := range rep.Results[1:] {
		if len(r.Samples) != 3 {
			t.Fatalf("%s: %d samples", r.Command, len(r.Samples))
		}
		// the loop costs tens of milliseconds of CPU, `true` well under one
		if r.CPU.Min < 10*idle || r.CPU.Min < 0.005 {
			t.Errorf("%s: CPU min %.4fs, true's max %.4fs: the descendant was not counted", r.Command, r.CPU.Min, idle)
		}
		if r.MaxRSS <= 0 {
			t.Errorf("%s: no peak RSS", r.Command)
		}
	}
	if rep.LoadStart == "" || rep.LoadEnd == "" {
		t.Error("no load average")
	}
}

func TestRunFailsOnFailure(t *testing.T) {
	_, err := Run(context.Background(), Config{Rounds: 1, Commands: [][]string{{"sh", "-c", "echo boom >&2; exit 3"}}})
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err = %v, want the command's stderr", err)
	}
}

func TestSpread(t *testing.T) {
	if got := Spread([]float64{3, 1, 2, 10}); got != (Stat{Min: 1, Median: 2.5, Max: 10}) {
		t.Errorf("Spread = %+v", got)
	}
}
