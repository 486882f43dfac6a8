package lazylog

import (
	"bytes"
	"errors"
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
