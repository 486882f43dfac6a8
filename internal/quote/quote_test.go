package quote

import "testing"

func TestLine(t *testing.T) {
	for in, want := range map[string]string{
		"calc.go, é 日本 \"x\" a\\b":     "calc.go, é 日本 \"x\" a\\b",
		"x\n## Iteration 9\r\t":        `x\n## Iteration 9\r\t`,
		"\x1b]0;T\x07\x00\x7f":         `\x1b]0;T\a\x00\x7f`,
		"\u009b2J \u202e\u2066 \u200b": `\u009b2J \u202e\u2066 \u200b`,
		"raw\x9b\xff":                  `raw\x9b\xff`,
	} {
		if got := Line(in); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
}
