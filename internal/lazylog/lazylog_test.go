package lazylog

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/log"
	"github.com/muesli/termenv"

	"github.com/loopkit/loopkit/internal/quote"
)

// charm is the logger loopkit used before: charmbracelet/log with a prefix,
// at debug level, in the Ascii or ANSI256 profile, string messages quoted.
func charm(w *bytes.Buffer, color bool) func(l Level, msg any, kv ...any) {
	c := log.NewWithOptions(w, log.Options{Prefix: "loop-x"})
	c.SetLevel(log.DebugLevel)
	if color {
		c.SetColorProfile(termenv.ANSI256)
	} else {
		c.SetColorProfile(termenv.Ascii)
	}
	return func(l Level, msg any, kv ...any) {
		if s, ok := msg.(string); ok {
			msg = quote.Line(s)
		}
		c.Log(log.Level(l), msg, kv...)
	}
}

type point struct {
	X int
	Y string
}

// sameCases are lines as loopkit's packages write them, and the format's
// corners: quoting, escapes, tabs, values of several lines, a key without
// a value, the keys the format reads as its own fields.
var sameCases = []struct {
	msg any
	kv  []any
}{
	{"i", nil},
	{"", []any{"k", 1}},
	{nil, []any{"k", "v"}},
	{"export", []any{"run", "r1", "err", errors.New("refused")}},
	{"e", []any{"q", `say "hi"`, "eq", "a=b", "empty", "", "sp", "a b"}},
	{"un-ignores evil\x1b]0;T\x07\u009b\u202e.txt, é", nil},
	{errors.New("tab\there\r\nand a line\nmore"), []any{"k", "v"}},
	{"m", []any{"multi", "one\ntwo\tthree\n", "after", 2}},
	{"m", []any{"multi", "one\r\ntwo"}},
	{"m", []any{"last", "one\n\ntwo"}},
	{"m", []any{"odd"}},
	{"m", []any{"a", 1, "odd"}},
	{"m", []any{"msg", "an other message", "level", "x", "prefix", "p", "caller", "c", "time", "t"}},
	{"m", []any{"time", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), "level", WarnLevel}},
	{"m", []any{"", "no key", 3, "int key", nil, "nil key"}},
	{"m", []any{"pt", point{1, "a b"}, "ptr", &point{2, "c"}, "nil", nil, "bytes", []byte("xy")}},
	{"m", []any{"bad", "\xff\xfe ok", "ctl", "\x01\x7f\u0085\U0001F600", "quote", `"`, "uni", "é\u00a0x"}},
	{"wide 日本語 and emoji 😀", []any{"path", "日本/語.txt"}},
	{fmt.Errorf("wrapped: %w", errors.New("inner\x1b[31m")), []any{"n", 1.5, "b", true}},
	{point{3, "s"}, []any{"tab", "\t"}},
}

// TestSameAsCharmLog: every line is byte for byte what charmbracelet/log
// wrote for it, plain and coloured, at every level.
func TestSameAsCharmLog(t *testing.T) {
	for _, color := range []bool{false, true} {
		var got, want bytes.Buffer
		z := New(&got, "loop-x", func() bool { return color })
		z.SetLevel(DebugLevel)
		c := charm(&want, color)
		for _, tc := range sameCases {
			for _, l := range []Level{DebugLevel, InfoLevel, WarnLevel, ErrorLevel} {
				got.Reset()
				want.Reset()
				z.write(l, tc.msg, tc.kv)
				c(l, tc.msg, tc.kv...)
				if got.String() != want.String() {
					t.Errorf("color %v, level %d, %q %q:\nwrote %q\nwant  %q", color, l, tc.msg, tc.kv, got.String(), want.String())
				}
			}
		}
	}
}

// TestSameAsCharmLogRandom: random messages and values drawn from the
// characters the format treats specially.
func TestSameAsCharmLogRandom(t *testing.T) {
	pieces := []string{"a", "Z", " ", "\t", "\n", "\r", "\r\n", "\"", "=", "\\", "é", "日", "😀", "\x00", "\x1b", "\x7f", "\u0085", "\u00a0", "\u200b", "\u202e", "\xff", "│", ":", "'"}
	str := func(r *rand.Rand, key bool) string {
		var b strings.Builder
		for n := r.IntN(6); n > 0; n-- {
			p := pieces[r.IntN(len(pieces))]
			if key && strings.Contains(p, "\n") {
				continue // keys are the program's words, on one line (text.go)
			}
			b.WriteString(p)
		}
		return b.String()
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, color := range []bool{false, true} {
		var got, want bytes.Buffer
		z := New(&got, "loop-x", func() bool { return color })
		z.SetLevel(DebugLevel)
		c := charm(&want, color)
		for range 3000 {
			var msg any = str(r, false)
			if r.IntN(4) == 0 {
				msg = errors.New(str(r, false))
			}
			kv := make([]any, r.IntN(5))
			for i := range kv {
				kv[i] = str(r, i%2 == 0)
			}
			got.Reset()
			want.Reset()
			z.write(InfoLevel, msg, kv)
			c(InfoLevel, msg, kv...)
			if got.String() != want.String() {
				t.Fatalf("color %v, %q %q:\nwrote %q\nwant  %q", color, msg, kv, got.String(), want.String())
			}
		}
	}
}

// TestLazy: lines under the level are dropped, and colour is asked once,
// at the first line written.
func TestLazy(t *testing.T) {
	var got bytes.Buffer
	asked := 0
	z := New(&got, "loop-x", func() bool { asked++; return false })
	z.Debug("hidden")
	if asked != 0 || got.Len() != 0 {
		t.Fatalf("a line under the level: asked %d, wrote %q", asked, got.String())
	}
	z.Info("a")
	z.SetLevel(ErrorLevel)
	z.Warn("dropped")
	z.Error("b")
	if want := "INFO loop-x: a\nERRO loop-x: b\n"; asked != 1 || got.String() != want || z.GetLevel() != ErrorLevel {
		t.Errorf("asked %d times; wrote %q, want %q", asked, got.String(), want)
	}
}

// A message may name what the agent wrote: it reaches the terminal
// escaped, as the format quotes values.
func TestMessageEscaped(t *testing.T) {
	var got bytes.Buffer
	z := New(&got, "loop-x", nil)
	z.Info("un-ignores evil\x1b]0;T\x07\u009b\u202e.txt, é")
	want := `loop-x: un-ignores evil\x1b]0;T\a\u009b\u202e.txt, é` + "\n"
	if !strings.HasSuffix(got.String(), want) {
		t.Errorf("wrote %q, want it to end %q", got.String(), want)
	}
}
