package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// claudeMsg is the part of a Claude Code message line loop-step reads;
// encoding/json skips the rest without keeping it.
type claudeMsg struct {
	Type            string  `json:"type"`
	Subtype         string  `json:"subtype"`
	SessionID       string  `json:"session_id"`
	ParentToolUseID *string `json:"parent_tool_use_id"`
	Message         *struct {
		ID      string        `json:"id"`
		Content []claudeBlock `json:"content"`
		Usage   *claudeUsage  `json:"usage"`
	} `json:"message"`
	Result       json.RawMessage `json:"result"`
	IsError      bool            `json:"is_error"`
	TotalCostUSD *float64        `json:"total_cost_usd"`
	Usage        *claudeUsage    `json:"usage"`
}

type claudeBlock struct {
	Type      string        `json:"type"`
	ID        string        `json:"id"`
	Name      string        `json:"name"`
	Input     argsSummary   `json:"input"`
	Text      string        `json:"text"`
	ToolUseID string        `json:"tool_use_id"`
	Content   resultSummary `json:"content"`
	IsError   bool          `json:"is_error"`
}

type claudeUsage struct {
	InputTokens         *int64 `json:"input_tokens"`
	OutputTokens        *int64 `json:"output_tokens"`
	CacheReadTokens     *int64 `json:"cache_read_input_tokens"`
	CacheCreationTokens *int64 `json:"cache_creation_input_tokens"`
}

func (u *claudeUsage) usage() Usage {
	return Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheReadTokens: u.CacheReadTokens, CacheCreationTokens: u.CacheCreationTokens}
}

// claude accumulates a Claude Code transcript, one message at a time.
type claude struct {
	res       Result
	calls     calls
	gotResult bool
	// perMessage holds each assistant message's usage once: stream-json
	// repeats a message over several lines with the same id and usage.
	perMessage map[string]Usage
	order      []string
	lastText   string
}

// Fast paths: stream_event lines (partial messages) are most of a
// stream-json transcript and carry nothing the totals need.
var (
	streamEventCompact = []byte(`{"type":"stream_event"`)
	streamEventSpaced  = []byte(`{"type": "stream_event"`)
)

func parseClaude(br *bufio.Reader, w *warnings) (*Result, error) {
	c := &claude{perMessage: map[string]Usage{}}
	lr := newLineReader(br, MaxLineBytes)
	for {
		if lr.peekStart() == '[' {
			// --output-format json --verbose: one array of every message,
			// one line or pretty-printed; decoded element by element.
			if err := c.array(br, w, lr.n+1); err != nil {
				return nil, err
			}
			break
		}
		l, err := lr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		c.line(l, lr.n, w)
	}
	return c.finish(), nil
}

func (c *claude) line(l line, n int, w *warnings) {
	switch {
	case l.long:
		w.skip(n, fmt.Sprintf("longer than %d bytes", MaxLineBytes))
		return
	case bytes.HasPrefix(l.b, streamEventCompact) || bytes.HasPrefix(l.b, streamEventSpaced):
		return
	}
	b := bytes.TrimSpace(l.b)
	if len(b) == 0 {
		return
	}
	var m claudeMsg
	if err := decodeLoose(b, &m); err != nil {
		if l.torn {
			w.skip(n, "torn last line")
		} else {
			w.skip(n, "not JSON")
		}
		return
	}
	c.message(&m)
}

// decodeLoose unmarshals a JSON value, accepting fields of an unexpected
// type (encoding/json fills in the rest and reports only the first).
func decodeLoose(b []byte, v any) error {
	err := json.Unmarshal(b, v)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return nil
	}
	return err
}

func (c *claude) array(br *bufio.Reader, w *warnings, lineNo int) error {
	dec := json.NewDecoder(br)
	if _, err := dec.Token(); err != nil { // the '['
		w.skip(lineNo, "bad JSON array")
		return nil
	}
	for dec.More() {
		var m claudeMsg
		if err := dec.Decode(&m); err != nil {
			var te *json.UnmarshalTypeError
			if !errors.As(err, &te) {
				// A syntax error leaves nothing to resynchronise on.
				w.skip(lineNo, fmt.Sprintf("bad JSON array element at byte %d: %v", dec.InputOffset(), err))
				return nil
			}
		}
		c.message(&m)
	}
	return nil
}

func (c *claude) message(m *claudeMsg) {
	if m.SessionID != "" && c.res.SessionID == "" {
		c.res.SessionID = m.SessionID
	}
	sub := m.ParentToolUseID != nil && *m.ParentToolUseID != ""
	switch m.Type {
	case "assistant":
		if m.Message == nil {
			return
		}
		if u := m.Message.Usage; u != nil && m.Message.ID != "" {
			if _, seen := c.perMessage[m.Message.ID]; !seen {
				c.order = append(c.order, m.Message.ID)
			}
			c.perMessage[m.Message.ID] = u.usage()
		}
		for _, b := range m.Message.Content {
			switch b.Type {
			case "tool_use", "server_tool_use", "mcp_tool_use":
				c.calls.use(b.ID, b.Name, string(b.Input), sub)
			case "text":
				if !sub && b.Text != "" {
					c.lastText = b.Text
				}
			}
		}
	case "user":
		if m.Message == nil {
			return
		}
		for _, b := range m.Message.Content {
			if b.Type == "tool_result" {
				c.calls.result(b.ToolUseID, string(b.Content), b.IsError, sub)
			}
		}
	case "result":
		if sub {
			return
		}
		c.gotResult = true
		if m.SessionID != "" {
			c.res.SessionID = m.SessionID
		}
		var text string
		if len(m.Result) > 0 && json.Unmarshal(m.Result, &text) == nil {
			c.res.FinalMessage = text
		}
		if m.Usage != nil {
			c.res.Usage = m.Usage.usage()
		}
		c.res.CostUSD = m.TotalCostUSD
		if m.IsError {
			msg := "claude result: " + m.Subtype
			if text != "" {
				msg += ": " + summary(text)
			}
			c.res.Errors = append(c.res.Errors, msg)
		}
	}
}

func (c *claude) finish() *Result {
	if !c.gotResult {
		// Cut off before the result line: sum the messages seen, each once.
		// Cost stays unknown: there is no price list here to make one up.
		for _, id := range c.order {
			c.res.Usage.Add(c.perMessage[id])
		}
	}
	if c.res.FinalMessage == "" {
		c.res.FinalMessage = c.lastText
	}
	c.res.ToolCalls = c.calls.all()
	return &c.res
}
