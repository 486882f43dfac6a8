// Package agent reads what a coding agent printed: Claude Code's
// stream-json, json and json-array output, Codex's `exec --json` events, or
// plain text. Every parser streams one value at a time with bounded memory,
// skips what is not JSON with a warning, and never fails on bad input.
package agent

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/loopkit/loopkit/internal/record"
)

// Formats of agent output.
const (
	FormatAuto     = "auto"
	FormatClaude   = "claude"
	FormatCodex    = "codex"
	FormatGemini   = "gemini"
	FormatOpencode = "opencode"
	FormatCursor   = "cursor"
	FormatAmp      = "amp"
	FormatCopilot  = "copilot"
	FormatText     = "text"
)

// Formats lists every value --format accepts.
var Formats = []string{FormatAuto, FormatClaude, FormatCodex, FormatGemini, FormatOpencode, FormatCursor, FormatAmp, FormatCopilot, FormatText}

// Usage is what a step cost. Nil means unknown, never a made-up 0; input
// tokens exclude cache reads and cache writes (Claude's meaning).
type Usage struct {
	InputTokens         *int64
	OutputTokens        *int64
	CacheReadTokens     *int64
	CacheCreationTokens *int64
	// ReasoningTokens is the part of OutputTokens spent on reasoning, when
	// the agent reports it (Codex); informational, never added twice.
	ReasoningTokens *int64
	CostUSD         *float64
	// Ignored names the figures Range dropped as out of range.
	Ignored []string
}

// Add adds u's known figures to s (a call's to a session's, an attempt's
// to a step's). A figure out of range is dropped (Range) before it could
// take from a sum or wrap it.
func (s *Usage) Add(u Usage) {
	u.Range()
	addInt(&s.InputTokens, u.InputTokens)
	addInt(&s.OutputTokens, u.OutputTokens)
	addInt(&s.CacheReadTokens, u.CacheReadTokens)
	addInt(&s.CacheCreationTokens, u.CacheCreationTokens)
	addInt(&s.ReasoningTokens, u.ReasoningTokens)
	if u.CostUSD != nil {
		c := *u.CostUSD
		if s.CostUSD != nil {
			c = record.AddCost(c, *s.CostUSD)
		}
		s.CostUSD = &c
	}
	s.Ignored = append(s.Ignored, u.Ignored...)
}

func addInt(dst **int64, v *int64) {
	if v == nil {
		return
	}
	n := *v
	if *dst != nil {
		n = SatAdd(n, **dst)
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
	// Notices are the agent's warnings that did not end its turn (Codex's
	// error items): logged, never the step's error.
	Notices []string
	// ErrorKind classifies them (record.ErrorKind*), "" when none.
	ErrorKind string
	// RateLimit is set when the agent hit a usage or rate limit.
	RateLimit *RateLimit
	// Model is the model the stream names, "" when it names none.
	Model string
	// ToolCallsDropped counts calls past Options.MaxToolCalls.
	ToolCallsDropped int
	// Skipped counts lines left unparsed: not JSON, too long, torn.
	Skipped int
	// Unfinished names the end of its stream the agent never printed
	// (Claude's result line, Codex's turn.completed, Gemini's result), ""
	// when it did or its format has none: an agent that exits 0 without
	// it stopped before its work did.
	Unfinished string
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

// DefaultMaxToolCalls is how many tool calls a result keeps by default; a
// tool-heavy stream of tens of thousands would otherwise fill memory.
const DefaultMaxToolCalls = 1000

// Options say how to parse.
type Options struct {
	// Format is the output format (auto or "": detected).
	Format string
	// Binary is the agent program's base name: it decides between formats
	// that look alike (Cursor and Amp print Claude-like events).
	Binary string
	Warn   Warner
	// MaxToolCalls bounds the calls kept (0: DefaultMaxToolCalls); the rest
	// are counted in ToolCallsDropped.
	MaxToolCalls int
	// Now is the time relative reset times ("try again in 2 hours") count
	// from; zero means the time of parsing.
	Now time.Time
}

// penv is what every parser shares: warnings, the clock, the call limit.
type penv struct {
	*warnings
	now      time.Time
	maxCalls int
}

const utf8BOM = "\ufeff"

// Parse reads an agent's stdout in the given format (auto: detected from the
// first JSON values). Only a read error fails it; bad content is skipped.
func Parse(r io.Reader, format string, warn Warner) (*Result, error) {
	return ParseOptions(r, Options{Format: format, Warn: warn})
}

// ParseOptions is Parse with every option.
func ParseOptions(r io.Reader, o Options) (*Result, error) {
	br := bufio.NewReaderSize(r, peekBytes)
	// a byte-order mark (a Windows wrapper's, PowerShell's) is no part of
	// the first line: jq reads past it, and so does loopkit
	if b, _ := br.Peek(len(utf8BOM)); string(b) == utf8BOM {
		br.Discard(len(utf8BOM))
	}
	format := o.Format
	if format == "" || format == FormatAuto {
		format = DetectBinary(br, o.Binary)
	}
	w := &penv{warnings: &warnings{fn: o.Warn}, now: o.Now, maxCalls: o.MaxToolCalls}
	if w.now.IsZero() {
		w.now = time.Now()
	}
	if w.maxCalls <= 0 {
		w.maxCalls = DefaultMaxToolCalls
	}
	var res *Result
	var err error
	switch format {
	case FormatClaude, FormatCursor, FormatAmp:
		res, err = parseClaude(br, w, format)
	case FormatCodex:
		res, err = parseCodex(br, w)
	case FormatGemini:
		res, err = parseGemini(br, w)
	case FormatOpencode:
		res, err = parseOpencode(br, w)
	case FormatCopilot:
		res, err = parseCopilot(br, w)
	case FormatText:
		res, err = parseText(br, w)
	default:
		return nil, fmt.Errorf("unknown agent output format %q (want %s)", format, strings.Join(Formats, ", "))
	}
	if err != nil {
		return nil, err
	}
	res.Format = format
	res.Skipped = w.done()
	// names the stream gives, kept to 200 characters as a tool's name is:
	// each goes whole into the views and the trace's attributes
	res.Model, res.SessionID = summary(res.Model), summary(res.SessionID)
	if res.ToolCalls == nil {
		res.ToolCalls = []record.ToolCall{}
	}
	return res, nil
}
