package recorder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// countLines sizes its buffer to the file: a small file, an empty one, one
// past the 256 KiB cap and one without a final newline count the same.
func TestCountLines(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		text string
		want int64
	}{
		{"", 0},
		{"a\n", 1},
		{"a\nb", 1},
		{strings.Repeat("x\n", 300<<10), 300 << 10},
		{strings.Repeat("y", 600<<10) + "\n\n", 2},
	} {
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, []byte(c.text), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := countLines(p); got != c.want {
			t.Errorf("countLines of %d bytes = %d, want %d", len(c.text), got, c.want)
		}
	}
	if got := countLines(filepath.Join(dir, "missing")); got != 0 {
		t.Errorf("countLines of a missing file = %d, want 0", got)
	}
}
