package failure

import (
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestStrip(t *testing.T) {
	for in, want := range map[string]string{
		"\x1b[1m\x1b[31mFAIL\x1b[0m x":           "FAIL x",
		"\x1b]8;;http://x\x07link\x1b]8;;\x1b\\": "link",
		"50%\r100%\ndone\r\n":                    "100%\ndone\n",
		"a\x00b\x7fc\td":                         "abc\td",
		"\x1b(Bplain\x1b[K":                      "plain",
		"\u009b31mred":                           "red",
		"caf\u00e9 \x1b[":                        "caf\u00e9 ",
	} {
		if got := Strip(in); got != want {
			t.Errorf("Strip(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestExcerptBounds checks on random outputs that the excerpt never passes
// its limit, keeps whole input lines only (or the end of the last one when
// not even that fits), and marks every left-out stretch.
func TestExcerptBounds(t *testing.T) {
	words := []string{"--- FAIL: TestX (0.00s)", "    x_test.go:3: got 1", "ok  \tpkg\t0.1s", "error: boom",
		"E   assert 1 == 2", "FAILED t.py::test_a - assert", "", "panic: nil map", "\x1b[31mred\x1b[0m", "日本語 text"}
	rng := rand.New(rand.NewSource(1))
	for n := 0; n < 2000; n++ {
		var lines []string
		for range rng.Intn(40) {
			l := words[rng.Intn(len(words))]
			if rng.Intn(8) == 0 {
				l = strings.Repeat(l+" ", rng.Intn(30))
			}
			lines = append(lines, l)
		}
		in := strings.Join(lines, "\n")
		max := rng.Intn(300)
		out, cut := Excerpt(in, max)
		if c := utf8.RuneCountInString(out); c > max {
			t.Fatalf("Excerpt(%q, %d) is %d characters", in, max, c)
		}
		stripped := splitLines(Strip(in))
		if max <= len(Marker) {
			continue // too small for anything but part of the marker
		}
		if !cut && out != strings.Join(stripped, "\n") {
			t.Fatalf("not cut but changed: %q", out)
		}
		have := map[string]bool{Marker: true}
		for _, l := range stripped {
			have[l] = true
		}
		outLines := strings.Split(out, "\n")
		for i, l := range outLines {
			last := i == len(outLines)-1
			if !have[l] && !(last && len(stripped) > 0 && strings.HasSuffix(stripped[len(stripped)-1], l)) && out != "" {
				t.Fatalf("Excerpt(%q, %d): line %q is not an input line", in, max, l)
			}
		}
		if cut && max > len(Marker) && !strings.Contains(out, Marker) {
			t.Fatalf("Excerpt(%q, %d) = %q: cut without a marker", in, max, out)
		}
	}
}
