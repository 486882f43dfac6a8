package failure

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite the golden files from the current code")

// TestGoldens runs Excerpt (500 characters, the block's default) and
// Extract on real outputs of each framework, captured with their colours,
// and compares them with the reviewed golden files beside them.
func TestGoldens(t *testing.T) {
	outs, _ := filepath.Glob("testdata/*.out")
	if len(outs) < 12 {
		t.Fatalf("want the captured outputs in testdata, found %d", len(outs))
	}
	for _, p := range outs {
		name := strings.TrimSuffix(filepath.Base(p), ".out")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			ex, cut := Excerpt(string(data), 500)
			if n := utf8.RuneCountInString(ex); n > 500 {
				t.Errorf("excerpt is %d characters, more than 500", n)
			}
			if strings.Contains(ex, "\x1b") {
				t.Errorf("excerpt keeps escape sequences")
			}
			var fails bytes.Buffer
			enc := json.NewEncoder(&fails)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(Extract(string(data))); err != nil {
				t.Fatal(err)
			}
			got := map[string]string{".excerpt": ex + "\n", ".failures.json": fails.String()}
			if cut {
				got[".excerpt"] = "(cut)\n" + got[".excerpt"]
			}
			for ext, g := range got {
				golden := strings.TrimSuffix(p, ".out") + ext
				if *update {
					if err := os.WriteFile(golden, []byte(g), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run go test -update to create it)", err)
				}
				if g != string(want) {
					t.Errorf("%s differs\n got:\n%s\nwant:\n%s", golden, g, want)
				}
			}
		})
	}
}
