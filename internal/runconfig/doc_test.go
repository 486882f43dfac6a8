package runconfig

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/cli.md's settings table from the schema")

// docs/cli.md lists every setting with the schema's flag, variable, config
// key and default: a setting added, renamed or re-defaulted without the
// page fails here (-update rewrites the table).
func TestCLIDocSettings(t *testing.T) {
	const path = "../../docs/cli.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	before, rest, ok1 := strings.Cut(page, DocStart+"\n")
	table, after, ok2 := strings.Cut(rest, DocEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s has no settings table between %q and %q", path, DocStart, DocEnd)
	}
	want := DocTable()
	if table == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(before+DocStart+"\n"+want+DocEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's settings table differs from the schema; run go test ./internal/runconfig -run TestCLIDocSettings -update", path)
}
