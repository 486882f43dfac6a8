package progress

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// seedCase is one golden file made by seed 002's own Rust code (gen.rs).
type seedCase struct {
	name   string
	limits Limits
	input  []byte
	want   string
}

func seedCases(t testing.TB) []seedCase {
	t.Helper()
	paths, err := filepath.Glob("testdata/seed002/*.txtar")
	if err != nil || len(paths) < 20 {
		t.Fatalf("want the seed 002 golden files, found %d (%v)", len(paths), err)
	}
	var cases []seedCase
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c := seedCase{name: strings.TrimSuffix(filepath.Base(p), ".txtar")}
		for _, f := range ar.Files {
			switch f.Name {
			case "limits":
				if _, err := fmt.Sscan(string(f.Data), &c.limits.MaxEntries, &c.limits.MaxChars); err != nil {
					t.Fatalf("%s: limits: %v", p, err)
				}
			case "input.jsonl":
				c.input = f.Data
			case "want.md":
				c.want = string(f.Data)
			}
		}
		if fix, ok := departures[c.name]; ok {
			c.want = fix(c.want)
		}
		cases = append(cases, c)
	}
	return cases
}

// departures are where loopkit's block differs from the seed's on purpose
// (docs/seeds.md): an output holding ``` gets a longer fence, so that it
// cannot close the block early.
var departures = map[string]func(string) string{
	"backticks_in_command": func(want string) string {
		return strings.Replace(strings.Replace(want, "**Output:**\n```\n", "**Output:**\n````\n", 1), "```\n```\n\n", "```\n````\n\n", 1)
	},
}

// TestSeedGoldens renders every case from records decoded off stdin-style
// NDJSON and compares the bytes with what the seed's Rust code printed.
func TestSeedGoldens(t *testing.T) {
	for _, c := range seedCases(t) {
		t.Run(c.name, func(t *testing.T) {
			logs, err := ReadRecords(bytes.NewReader(c.input), c.limits.MaxEntries)
			if err != nil {
				t.Fatal(err)
			}
			if got := Render(logs, c.limits); got != c.want {
				t.Errorf("Render differs from seed 002\n got: %q\nwant: %q", got, c.want)
			}
		})
	}
}

// TestSeedGoldensFromStore appends the same records to a run and renders
// what Load reads back from the end of iterations.jsonl.
func TestSeedGoldensFromStore(t *testing.T) {
	for _, c := range seedCases(t) {
		t.Run(c.name, func(t *testing.T) {
			st := newRun(t, "r1")
			for _, line := range bytes.SplitAfter(c.input, []byte("\n")) {
				if line = bytes.TrimSpace(line); len(line) > 0 {
					appendLine(t, st, "r1", line)
				}
			}
			logs, err := Load(st, "r1", c.limits.MaxEntries)
			if err != nil {
				t.Fatal(err)
			}
			if got := Render(logs, c.limits); got != c.want {
				t.Errorf("Render(Load) differs from seed 002\n got: %q\nwant: %q", got, c.want)
			}
		})
	}
}

func newRun(t testing.TB, id string) *store.Store {
	t.Helper()
	st := &store.Store{Root: filepath.Join(t.TempDir(), ".loop")}
	if err := st.CreateRun(store.NewRun(id, id, 1)); err != nil {
		t.Fatal(err)
	}
	return st
}

func appendLine(t testing.TB, st *store.Store, id string, line []byte) {
	t.Helper()
	if err := store.AppendLine(st.RunPath(id, store.IterationsFile), line); err != nil {
		t.Fatal(err)
	}
}

func appendLog(t testing.TB, st *store.Store, id string, it record.IterationLog) {
	t.Helper()
	line, err := record.Marshal(it)
	if err != nil {
		t.Fatal(err)
	}
	appendLine(t, st, id, line)
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestGoldensAreSeedOutput rebuilds the golden files from gen.rs (the seed's
// Rust code) when rustc is installed, so they cannot drift from the seed.
func TestGoldensAreSeedOutput(t *testing.T) {
	rustc, err := exec.LookPath("rustc")
	if err != nil {
		t.Skip("rustc not installed: the committed golden files are checked by TestSeedGoldens")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "gen002")
	if out, err := exec.Command(rustc, "-o", bin, "testdata/seed002/gen.rs").CombinedOutput(); err != nil {
		t.Fatalf("rustc: %v\n%s", err, out)
	}
	if out, err := exec.Command(bin, dir).CombinedOutput(); err != nil {
		t.Fatalf("gen002: %v\n%s", err, out)
	}
	made, _ := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if len(made) != len(seedCases(t)) {
		t.Fatalf("gen.rs made %d cases, %d are committed", len(made), len(seedCases(t)))
	}
	for _, p := range made {
		want, _ := os.ReadFile(p)
		got, err := os.ReadFile(filepath.Join("testdata/seed002", filepath.Base(p)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: committed golden differs from gen.rs output (regenerate, see gen.rs)", filepath.Base(p))
		}
	}
}
