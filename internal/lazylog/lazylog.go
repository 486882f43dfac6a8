// Package lazylog is how loopkit logs: lines in charmbracelet/log's text
// format (its default styles, no timestamp), written by a formatter of
// our own (text.go). Linking that library and its terminal stack
// (lipgloss, termenv, x/ansi, runewidth) cost every start of every command
// about 0.3 ms of package initialisation and page faults, while most starts
// log nothing and the driver starts three commands an iteration. Whether
// the lines are coloured is decided at the first line written.
package lazylog

import (
	"bytes"
	"io"
	"sync"
	"sync/atomic"

	"github.com/loopkit/loopkit/internal/quote"
)

// Logger is what the packages that log take: a *Lazy, or in tests any
// charmbracelet/log logger.
type Logger interface {
	Debug(msg any, keyvals ...any)
	Info(msg any, keyvals ...any)
	Warn(msg any, keyvals ...any)
	Error(msg any, keyvals ...any)
}

// Level is a line's severity, with charmbracelet/log's values.
type Level int32

// The levels a Lazy writes at.
const (
	DebugLevel Level = -4
	InfoLevel  Level = 0
	WarnLevel  Level = 4
	ErrorLevel Level = 8
)

// ParseLevel is the level named debug, info, warn or error (lower case).
func ParseLevel(name string) (Level, bool) {
	switch name {
	case "debug":
		return DebugLevel, true
	case "info":
		return InfoLevel, true
	case "warn":
		return WarnLevel, true
	case "error":
		return ErrorLevel, true
	}
	return InfoLevel, false
}

// Lazy writes lines at or above its level to w, each prefixed with its
// prefix, in one write each.
type Lazy struct {
	level  atomic.Int32 // a Level
	w      io.Writer
	prefix string
	color  func() bool // nil: never coloured
	once   sync.Once
	ansi   bool // colour (ANSI 256), decided by color at the first line
	mu     sync.Mutex
	b      bytes.Buffer
}

// New is a logger at info level writing to w; color, when not nil, says
// at the first line whether the lines are coloured.
func New(w io.Writer, prefix string, color func() bool) *Lazy {
	return &Lazy{w: w, prefix: prefix, color: color}
}

// SetLevel sets the lowest level written.
func (z *Lazy) SetLevel(l Level) { z.level.Store(int32(l)) }

// GetLevel is the lowest level written.
func (z *Lazy) GetLevel() Level { return Level(z.level.Load()) }

func (z *Lazy) write(l Level, msg any, keyvals []any) {
	if l < z.GetLevel() {
		return
	}
	z.once.Do(func() { z.ansi = z.color != nil && z.color() })
	if s, ok := msg.(string); ok {
		msg = quote.Line(s) // it may name what the agent wrote; the format quotes values only
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	z.b.Reset()
	z.format(l, msg, keyvals)
	z.b.WriteTo(z.w) //nolint:errcheck // a log line has nowhere to report its failure
}

// Debug, Info, Warn and Error write one line at their level.
func (z *Lazy) Debug(msg any, keyvals ...any) { z.write(DebugLevel, msg, keyvals) }
func (z *Lazy) Info(msg any, keyvals ...any)  { z.write(InfoLevel, msg, keyvals) }
func (z *Lazy) Warn(msg any, keyvals ...any)  { z.write(WarnLevel, msg, keyvals) }
func (z *Lazy) Error(msg any, keyvals ...any) { z.write(ErrorLevel, msg, keyvals) }
