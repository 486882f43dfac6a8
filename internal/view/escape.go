// Package view renders a store for people and scripts: the runs list, a
// run's iterations (the Logs view), their outputs (the Output view), a run's
// description, and the readers behind them, which never create anything.
package view

import "github.com/loopkit/loopkit/internal/quote"

// Escape makes child-written text safe for a terminal (quote.Escape).
func Escape(s string, multiline bool) string { return quote.Escape(s, multiline) }
