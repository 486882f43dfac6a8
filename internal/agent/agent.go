// Package agent reads what a coding agent printed: Claude Code's
// stream-json, json and json-array output, Codex's `exec --json` events, or
// plain text. Every parser streams one value at a time with bounded memory,
// skips what is not JSON with a warning, and never fails on bad input.
package agent

import (
	"bufio"
	"fmt"
	"io"

	"github.com/loopkit/loopkit/internal/record"
)

// Formats of agent output.
const (
	FormatAuto   = "auto"
	FormatClaude = "claude"
	FormatCodex  = "codex"
	FormatText   = "text"
)

// Usage is what a step cost. Nil means unknown, never a made-up 0; input
// tokens exclude cache reads and cache writes (Claude's meaning).
type Usage struct {
	InputTokens         *int64
	OutputTokens        *int64
	CacheReadTokens     *int64
	CacheCreationTokens *int64
	CostUSD             *float64
}

// Add adds u's known figures to s (an attempt's usage to a step's).
func (s *Usage) Add(u Usage) {
	addInt(&s.InputTokens, u.InputTokens)
	addInt(&s.OutputTokens, u.OutputTokens)
	addInt(&s.CacheReadTokens, u.CacheReadTokens)
	addInt(&s.CacheCreationTokens, u.CacheCreationTokens)
	if u.CostUSD != nil {
		c := *u.CostUSD
		if s.CostUSD != nil {
			c += *s.CostUSD
		}
		s.CostUSD = &c
	}
}

func addInt(dst **int64, v *int64) {
	if v == nil {
		return
	}
	n := *v
	if *dst != nil {
		n += **dst
	}
	*dst = &n
}

// Result is what a parser learned from one agent run.
type Result struct {
	Format    string
	SessionID string
	Usage
	ToolCalls    []record.ToolCall
	FinalMessage string
	// Errors are failures the agent itself reported (Claude's is_error
	// result, Codex's turn.failed and error events).
	Errors []string
	// Skipped counts lines left unparsed: not JSON, too long, torn.
	Skipped int
}

// Warner receives parser warnings (charmbracelet/log's Warn fits).
type Warner func(msg any, keyvals ...any)

// maxWarnings is how many skipped lines are reported one by one; the rest
// are counted in one closing warning.
const maxWarnings = 3

type warnings struct {
	fn Warner
	n  int
}

func (w *warnings) skip(lineNo int, why string) {
	w.n++
	if w.fn != nil && w.n <= maxWarnings {
		w.fn("agent output line skipped", "line", lineNo, "why", why)
	}
}

func (w *warnings) done() int {
	if w.fn != nil && w.n > maxWarnings {
		w.fn("agent output lines skipped", "count", w.n)
	}
	return w.n
}

// Parse reads an agent's stdout in the given format (auto: detected from the
// first JSON values). Only a read error fails it; bad content is skipped.
func Parse(r io.Reader, format string, warn Warner) (*Result, error) {
	br := bufio.NewReaderSize(r, peekBytes)
	if format == "" || format == FormatAuto {
		format = Detect(br)
	}
	w := &warnings{fn: warn}
	var res *Result
	var err error
	switch format {
	case FormatClaude:
		res, err = parseClaude(br, w)
	case FormatCodex:
		res, err = parseCodex(br, w)
	case FormatText:
		res, err = parseText(br)
	default:
		return nil, fmt.Errorf("unknown agent output format %q (want auto, claude, codex or text)", format)
	}
	if err != nil {
		return nil, err
	}
	res.Format = format
	res.Skipped = w.done()
	if res.ToolCalls == nil {
		res.ToolCalls = []record.ToolCall{}
	}
	return res, nil
}
