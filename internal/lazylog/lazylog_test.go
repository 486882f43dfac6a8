package lazylog

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/charmbracelet/log"
)

// TestLazy: nothing is made until a line at the level is written; then
// the lines are the charmbracelet/log logger's own.
func TestLazy(t *testing.T) {
	var got, want bytes.Buffer
	made := 0
	z := New(func() *log.Logger {
		made++
		return log.NewWithOptions(&got, log.Options{Prefix: "loop-x"})
	})
	direct := log.NewWithOptions(&want, log.Options{Prefix: "loop-x"})
	z.Debug("hidden")
	if made != 0 {
		t.Fatal("a line under the level made the logger")
	}
	z.SetLevel(log.DebugLevel)
	direct.SetLevel(log.DebugLevel)
	for _, l := range []Logger{z, direct} {
		l.Debug("d", "k", 1)
		l.Info("i")
		l.Warn("export", "run", "r1", "err", errors.New("refused"))
		l.Error("e", "q", `say "hi"`)
	}
	z.SetLevel(log.ErrorLevel)
	z.Warn("dropped")
	if made != 1 || got.String() != want.String() || z.GetLevel() != log.ErrorLevel {
		t.Errorf("made %d times; wrote\n%s\nwant\n%s", made, got.String(), want.String())
	}
}

// A message may name what the agent wrote: it reaches the terminal
// escaped, as the logger itself quotes values.
func TestMessageEscaped(t *testing.T) {
	var got bytes.Buffer
	z := New(func() *log.Logger { return log.NewWithOptions(&got, log.Options{Prefix: "loop-x"}) })
	z.Info("un-ignores evil\x1b]0;T\x07\u009b\u202e.txt, é")
	want := `loop-x: un-ignores evil\x1b]0;T\a\u009b\u202e.txt, é` + "\n"
	if !strings.HasSuffix(got.String(), want) {
		t.Errorf("wrote %q, want it to end %q", got.String(), want)
	}
}
