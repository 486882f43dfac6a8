package view

import (
	"fmt"
	"strconv"
	"time"
)

// Style is how text is written: Color adds ANSI colours (a terminal without
// NO_COLOR), Align pads columns (a terminal); piped text is one plain record
// per line.
type Style struct {
	Color bool
	Align bool
}

const (
	green  = "\x1b[32m"
	red    = "\x1b[31m"
	yellow = "\x1b[33m"
	bold   = "\x1b[1m"
	reset  = "\x1b[0m"
)

// Green and Red are the colours of additions and removals (and of a
// completed or failed run).
const (
	Green = green
	Red   = red
)

// Paint is text in color when s is coloured.
func (s Style) Paint(color, text string) string { return s.paint(color, text) }

func (s Style) paint(color, text string) string {
	if !s.Color || color == "" {
		return text
	}
	return color + text + reset
}

// exitColor is the colour code: green for 0, yellow when the command
// did not exit by itself (-1, an error), red for any other code.
func exitColor(code int, status string) string {
	switch {
	case status == "error" || code < 0:
		return yellow
	case code == 0:
		return green
	}
	return red
}

// Human renders a count the short way: 950, 1.2k, 3.4M.
func Human(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case n < 1_000_000:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/1e3)) + "k"
	}
	return trimZero(fmt.Sprintf("%.1f", float64(n)/1e6)) + "M"
}

func trimZero(s string) string {
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		return s[:len(s)-2]
	}
	return s
}

// Millis renders a duration in milliseconds the short way: 850ms, 12.3s, 4m05s.
func Millis(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", ms)
	case d < time.Minute:
		return trimZero(fmt.Sprintf("%.1f", d.Seconds())) + "s"
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// Age renders how long ago a millisecond timestamp was: 45s, 5m, 3h, 2d.
func Age(ms int64, now time.Time) string {
	d := now.Sub(time.UnixMilli(ms))
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(int(d.Seconds()), 0))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// Cost renders dollars: $0.12, $0.0034 for small amounts, - when unknown.
func Cost(c *float64) string {
	switch {
	case c == nil:
		return "-"
	case *c != 0 && *c < 0.01:
		return fmt.Sprintf("$%.4f", *c)
	}
	return fmt.Sprintf("$%.2f", *c)
}

// CostOf renders a stored cost with where it came from: an estimate says
// so, and a cost the agent never reported is "unknown" (records from
// before cost_source was kept show "-").
func CostOf(c *float64, source *string) string {
	src := ""
	if source != nil {
		src = *source
	}
	switch {
	case c == nil && src != "":
		return "unknown"
	case c != nil && src == "estimated":
		return Cost(c) + " (estimated)"
	}
	return Cost(c)
}

// Stamp renders a millisecond timestamp in UTC, - when unset.
func Stamp(ms *int64) string {
	if ms == nil || *ms == 0 {
		return "-"
	}
	return time.UnixMilli(*ms).UTC().Format("2006-01-02 15:04:05Z")
}

func tokens(n *int64) string {
	if n == nil {
		return "-"
	}
	return strconv.FormatInt(*n, 10)
}
