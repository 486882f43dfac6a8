package fleet

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The collision check is written three times (merge-runs.sh, which
// TestScripts/fleet_merge runs; the workflow's merge job; docs/fleet.md):
// all three must be the same jq program.
func TestMergeRecipeIsOneProgram(t *testing.T) {
	jqProgram := regexp.MustCompile(`(?s)jq -nr '([^']*)'`)
	program := func(path string) string {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m := jqProgram.FindSubmatch(data)
		if m == nil {
			t.Fatalf("%s: no jq -nr '...' program", path)
		}
		return strings.Join(strings.Fields(string(m[1])), " ")
	}
	want := program("merge-runs.sh")
	for _, path := range []string{"github/loop-fleet.yml", "../../docs/fleet.md"} {
		if got := program(path); got != want {
			t.Errorf("%s: the collision check differs from merge-runs.sh:\n got %s\nwant %s", path, got, want)
		}
	}
}
