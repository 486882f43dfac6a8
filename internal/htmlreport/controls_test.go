package htmlreport

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestReportShowsWhatActs: a diff or an output that reorders its line with
// a bidirectional override (Trojan Source), carries a C1 control (U+009B
// is a CSI to a terminal reading the page with cat) or a byte that is not
// UTF-8 shows each as text, as the terminal views do (the diff is read as
// UTF-8 text, so a stray byte is already U+FFFD).
func TestReportShowsWhatActs(t *testing.T) {
	st := failedRun(t, "r", "make test", "auth.go")
	dir := st.IterationDir("r1", 1)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	patch := "diff --git a/auth.go b/auth.go\n--- a/auth.go\n+++ b/auth.go\n@@ -0,0 +1 @@\n" +
		"+if admin \u202e} \u2066// check\u2069 {\n+c1 \u009b2J raw \x9b31m \xff end\n"
	if err := os.WriteFile(filepath.Join(dir, "changes.patch"), []byte(patch), 0o644); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, st, "r1", Options{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if !utf8.ValidString(page) {
		t.Errorf("the page is not UTF-8")
	}
	if i := strings.IndexAny(page, "\u202e\u2066\u2069\u009b"); i >= 0 {
		t.Errorf("a control character at %d: %q", i, page[max(i-40, 0):min(i+40, len(page))])
	}
	for _, want := range []string{`if admin \u202e} \u2066// check\u2069 {`, `c1 \u009b2J raw ` + "\ufffd31m \ufffd end"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestControlsSplitCharacters: bufio hands the page on in pieces that may
// cut a character in two; the result is the same wherever the cut falls.
func TestControlsSplitCharacters(t *testing.T) {
	in := "a\u202eé\u009b日\x9b\xf0\x9f\x98\x80z\xe2\x80"
	var whole bytes.Buffer
	c := &controls{w: &whole}
	if _, err := c.Write([]byte(in)); err != nil {
		t.Fatal(err)
	}
	if err := c.end(); err != nil {
		t.Fatal(err)
	}
	want := `a\u202eé\u009b日\x9b` + "\U0001F600" + `z\xe2\x80`
	if whole.String() != want {
		t.Fatalf("got %q, want %q", whole.String(), want)
	}
	for cut := 0; cut <= len(in); cut++ {
		var got bytes.Buffer
		c := &controls{w: &got}
		for _, part := range []string{in[:cut], in[cut:]} {
			if n, err := c.Write([]byte(part)); err != nil || n != len(part) {
				t.Fatalf("cut %d: wrote %d of %d: %v", cut, n, len(part), err)
			}
		}
		if err := c.end(); err != nil {
			t.Fatal(err)
		}
		if got.String() != want {
			t.Errorf("cut at %d: %q, want %q", cut, got.String(), want)
		}
	}
}
