package quote

import "testing"

func TestEscape(t *testing.T) {
	for in, want := range map[string][2]string{
		"plain é 日本":              {"plain é 日本", "plain é 日本"},
		"a\x1b[31mred\x1b[0m\r\n": {`a\x1b[31mred\x1b[0m\r` + "\n", `a\x1b[31mred\x1b[0m\r\n`},
		"nul\x00\tdel\x7f":        {"nul\\x00\tdel\\x7f", `nul\x00\tdel\x7f`},
		"c1\u009b2J bidi\u202e":   {`c1\u009b2J bidi\u202e`, `c1\u009b2J bidi\u202e`},
		// not UTF-8: a raw 0x9b byte is a CSI to an 8-bit terminal
		"raw\x9b2J \xff\xfe": {`raw\x9b2J \xff\xfe`, `raw\x9b2J \xff\xfe`},
		"é\x9b31m":           {`é\x9b31m`, `é\x9b31m`},
		"alm\u061c":          {`alm\u061c`, `alm\u061c`},
	} {
		if got := Escape(in, true); got != want[0] {
			t.Errorf("Escape(%q, multi) = %q, want %q", in, got, want[0])
		}
		if got := Escape(in, false); got != want[1] {
			t.Errorf("Escape(%q, single) = %q, want %q", in, got, want[1])
		}
	}
}

func TestJSON(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":"plain é 日本 \u001b"}`:                         `{"a":"plain é 日本 \u001b"}`,
		"{\"a\":\"c1 \u009b2J \u0085\"}":                    `{"a":"c1 \u009b2J \u0085"}`,
		"{\"a\":\"\u202eRTL\u2066 \u200f \u061c é\u00a0\"}": "{\"a\":\"\\u202eRTL\\u2066 \\u200f \\u061c é\u00a0\"}",
	} {
		if got := string(JSON([]byte(in))); got != want {
			t.Errorf("JSON(%q) = %q, want %q", in, got, want)
		}
	}
}
