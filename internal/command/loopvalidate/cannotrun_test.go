package loopvalidate

import (
	"os"
	"path/filepath"
	"testing"
)

// A validation's sh says it cannot run a command in the person's language
// and in its own words: bash (macOS's and Fedora's sh) says "No such file
// or directory", in German "Kommando nicht gefunden". Only dash's English
// "not found" stopped the run; the others cost an agent call per iteration
// until the run was stuck. The words are learned from the same sh.
func TestCannotRunInTheShellsWords(t *testing.T) {
	bin := t.TempDir()
	// a German bash: a name, a path and a file that cannot run, in its words
	sh := `#!/bin/sh
case $2 in
/dev/null) echo "sh: Zeile 1: $2: Keine Berechtigung" >&2; exit 126 ;;
*/*/*) echo "sh: Zeile 1: $2: Datei oder Verzeichnis nicht gefunden" >&2; exit 127 ;;
*) echo "sh: Zeile 1: $2: Kommando nicht gefunden." >&2; exit 127 ;;
esac
`
	if err := os.WriteFile(filepath.Join(bin, "sh"), []byte(sh), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := t.TempDir()
	for _, c := range []struct {
		code   int
		stderr string
		want   bool
	}{
		{127, "npm test\nsh: Zeile 1: jest: Kommando nicht gefunden.\n", true},
		{127, "sh: Zeile 1: ./check.sh: Datei oder Verzeichnis nicht gefunden\n", true},
		{126, "sh: Zeile 1: ./check.sh: Keine Berechtigung\n", true},
		{127, "FAIL: TestX\n", false},                                       // a test's own 127
		{127, "sh: Zeile 1: jest: Kommando nicht gefunden.\nFAIL\n", false}, // said, then went on
		{1, "sh: Zeile 1: jest: Kommando nicht gefunden.\n", false},         // an exit of its own
		{126, "sh: Zeile 1: jest: Kommando nicht gefunden.\n", false},       // not a file that cannot run
	} {
		if got := cannotRun(c.code, c.stderr, dir); got != c.want {
			t.Errorf("cannotRun(%d, %q) = %v, want %v", c.code, c.stderr, got, c.want)
		}
	}
}
