// Package lazylog is how loopkit logs: through charmbracelet/log, whose
// logger (its styles and terminal renderer) is made only when a line is
// written. Most starts of a command log nothing, and the driver starts
// three commands an iteration.
package lazylog

import (
	"sync"
	"sync/atomic"

	"github.com/charmbracelet/log"

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

// Lazy is a logger made by its constructor on the first line at or above
// its level.
type Lazy struct {
	level atomic.Int32 // a log.Level
	once  sync.Once
	make  func() *log.Logger
	l     *log.Logger
}

// New is a logger at info level that make builds on first use.
func New(make func() *log.Logger) *Lazy {
	z := &Lazy{make: make}
	z.level.Store(int32(log.InfoLevel))
	return z
}

// SetLevel sets the lowest level written.
func (z *Lazy) SetLevel(l log.Level) { z.level.Store(int32(l)) }

// GetLevel is the lowest level written.
func (z *Lazy) GetLevel() log.Level { return log.Level(z.level.Load()) }

func (z *Lazy) logger() *log.Logger {
	z.once.Do(func() {
		z.l = z.make()
		z.l.SetLevel(log.DebugLevel) // the level is checked here, before
	})
	return z.l
}

func (z *Lazy) write(l log.Level, msg any, keyvals []any) {
	if l >= z.GetLevel() {
		if s, ok := msg.(string); ok {
			msg = quote.Line(s) // it may name what the agent wrote; the logger quotes values only
		}
		z.logger().Log(l, msg, keyvals...)
	}
}

// Debug, Info, Warn and Error write one line at their level.
func (z *Lazy) Debug(msg any, keyvals ...any) { z.write(log.DebugLevel, msg, keyvals) }
func (z *Lazy) Info(msg any, keyvals ...any)  { z.write(log.InfoLevel, msg, keyvals) }
func (z *Lazy) Warn(msg any, keyvals ...any)  { z.write(log.WarnLevel, msg, keyvals) }
func (z *Lazy) Error(msg any, keyvals ...any) { z.write(log.ErrorLevel, msg, keyvals) }
