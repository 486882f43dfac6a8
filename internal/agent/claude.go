package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/loopkit/loopkit/internal/record"
)

// claude accumulates a Claude Code transcript, one message at a time.
type claude struct {
	res   Result
	calls calls
	w     *penv
	// sessions in the order first seen: one stdout can hold several (a
	// wrapper running the agent twice); their totals add up.
	sessions []*claudeSession
	bySID    map[string]*claudeSession
	// label names the agent in error messages (claude, cursor, amp).
	label string
	// lastText is the last text block's text, or its literal in lastRaw
	// (reused: a text-only stream decodes none but the last).
	lastText string
	lastRaw  []byte
	// limitLine is the rejected rate_limit_event, until a success clears it.
	limited *RateLimit
}

// claudeSession is one session's figures: the sum of its messages' usage
// and what its last result line said.
type claudeSession struct {
	// perMessage is each assistant message's usage, by id: stream-json
	// repeats a message once per content block, and the later copies carry
	// the fuller usage, so the last copy counts.
	perMessage map[string]Usage
	messages   Usage
	result     Usage // per field: the last result that reported it
	gotResult  bool
	cost       *float64
	ignored    []string // what modelUsage's sum dropped
}

// Fast paths: stream_event lines (partial messages) are most of a
// stream-json transcript and carry nothing the totals need.
var (
	streamEventCompact = []byte(`{"type":"stream_event"`)
	streamEventSpaced  = []byte(`{"type": "stream_event"`)
)

func parseClaude(br *bufio.Reader, w *penv, label string) (*Result, error) {
	c := &claude{w: w, label: label, bySID: map[string]*claudeSession{}}
	c.calls.max = w.maxCalls
	lr := newLineReader(br, MaxLineBytes)
	for {
		if lr.peekStart() == '[' && arrayAhead(br) {
			// --output-format json --verbose: one array of every message,
			// one line or pretty-printed; decoded element by element, then
			// the lines after it as any others.
			c.array(lr, w)
			continue
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

func (c *claude) line(l line, n int, w *penv) {
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
	if scanClaude(b, &m) {
		c.message(&m, b)
		return
	}
	m = claudeMsg{}
	if err := decodeLoose(b, &m); err != nil {
		if l.torn {
			w.skip(n, "torn last line")
		} else {
			w.skip(n, "not JSON")
		}
		return
	}
	c.message(&m, b)
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

// session returns the figures of session id; a line without one belongs
// to the latest session.
func (c *claude) session(id string) *claudeSession {
	if id == "" && len(c.sessions) > 0 {
		return c.sessions[len(c.sessions)-1]
	}
	if s, ok := c.bySID[id]; ok {
		return s
	}
	s := &claudeSession{}
	c.bySID[strings.Clone(id)] = s
	c.sessions = append(c.sessions, s)
	return s
}

func (c *claude) message(m *claudeMsg, raw []byte) {
	if m.SessionID != "" && c.res.SessionID == "" {
		c.res.SessionID = strings.Clone(m.SessionID)
	}
	sub := m.ParentToolUseID != nil && *m.ParentToolUseID != ""
	switch m.Type {
	case "system":
		if m.Subtype == "init" && m.Model != "" {
			c.res.Model = strings.Clone(m.Model)
		}
		if m.Subtype == "init" && c.label == FormatClaude {
			c.session(m.SessionID) // a session begun, whose result must come
		}
	case "rate_limit_event":
		c.rateLimitEvent(m, raw)
	case "tool_call":
		c.cursorToolCall(m, sub)
	case "assistant":
		if m.Message == nil {
			return
		}
		if m.Message.Model != "" && !sub && c.res.Model == "" {
			c.res.Model = strings.Clone(m.Message.Model)
		}
		if u := m.Message.Usage; u != nil && m.Message.ID != "" {
			s := c.session(m.SessionID)
			if s.perMessage == nil {
				s.perMessage = map[string]Usage{}
			}
			id := m.Message.ID
			if _, seen := s.perMessage[id]; !seen {
				id = strings.Clone(id)
			}
			s.perMessage[id] = u.usage()
		}
		hasText := false
		for _, b := range m.Message.Content {
			switch b.Type {
			case "tool_use", "server_tool_use", "mcp_tool_use":
				args := ""
				if c.calls.wants(b.ID) { // past --max-tool-calls: counted only
					args = b.args()
				}
				c.calls.use(b.ID, b.Name, args, sub)
			case "text":
				if !sub && (b.Text != "" || len(b.textRaw) > 2) {
					c.lastText = strings.Clone(b.Text)
					c.lastRaw = append(c.lastRaw[:0], b.textRaw...)
					hasText = true
				}
			}
		}
		if m.Error != "" && !sub {
			text := ""
			if hasText {
				text = c.finalText()
			}
			// A synthetic message standing for a failed API call: its
			// text is the CLI's own words ("Not logged in · Please run /login").
			c.apiError(claudeErrorKind(m.Error, m.APIError), text)
		}
	case "user":
		if m.Message == nil {
			return
		}
		for _, b := range m.Message.Content {
			if b.Type == "tool_result" && c.calls.wants(b.ToolUseID) {
				c.calls.result(b.ToolUseID, b.result(), b.IsError, sub)
			}
		}
	case "result":
		if !sub {
			c.result(m)
		}
	}
}

// cursorToolCall is one tool of a Cursor tool_call event.
type cursorToolCall struct {
	Args   argsSummary `json:"args"`
	Result *struct {
		Success *resultSummary `json:"success"`
		Error   *resultSummary `json:"error"`
	} `json:"result"`
}

// cursorToolCall records Cursor's tool_call started/completed events; the
// tool is named by its key without the ToolCall suffix (shellToolCall: shell).
func (c *claude) cursorToolCall(m *claudeMsg, sub bool) {
	for key, tc := range m.ToolCall {
		name := strings.TrimSuffix(key, "ToolCall")
		c.calls.use(m.CallID, name, string(tc.Args), sub)
		if m.Subtype == "completed" && tc.Result != nil {
			switch {
			case tc.Result.Error != nil:
				c.calls.result(m.CallID, string(*tc.Result.Error), true, sub)
			case tc.Result.Success != nil:
				c.calls.result(m.CallID, string(*tc.Result.Success), false, sub)
			}
		}
	}
}

func (c *claude) rateLimitEvent(m *claudeMsg, raw []byte) {
	info := m.RateLimitInfo
	if info == nil {
		return
	}
	// allowed and allowed_warning are information; rejected is the limit,
	// unless the account carries on with overage billing.
	if info.Status != "rejected" || info.IsUsingOverage {
		return
	}
	var resets int64
	// Converted only in range: a float past int64 converts to anything.
	if s := info.ResetsAt; s != nil && *s > 0 && *s*1000 <= float64(maxResetsAtMs) {
		resets = int64(*s * 1000)
	}
	ev := string(raw)
	if ev == "" {
		ev = `{"type":"rate_limit_event","rate_limit_info":{"status":"rejected"}}`
	}
	c.limited = &RateLimit{ResetsAt: resets, Evidence: record.HeadChars(ev, evidenceChars)}
}

// claudeErrorKind is the kind of a failed call: an API that could not be
// reached is no overloaded one, whatever Error says.
func claudeErrorKind(code, apiError string) string {
	if strings.HasPrefix(apiError, "connection") {
		return record.ErrorKindAPI
	}
	return kindOfCode(code)
}

// apiError notes a failed API call; the message is the agent's own words.
func (c *claude) apiError(kind, msg string) {
	if msg == "" {
		msg = c.label + " API error: " + kind
	}
	if kind == "" || kind == record.ErrorKindAPI {
		if k := classify(msg); k != "" {
			kind = k
		}
	}
	if kind = unpaid(kind, msg); kind == "" {
		kind = record.ErrorKindAPI
	}
	for _, e := range c.res.Errors {
		if e == msg {
			c.res.fail(kind, "") // the result line repeats the message
			return
		}
	}
	c.res.fail(kind, msg)
	if kind == record.ErrorKindRateLimit {
		c.res.limit(resetTime(msg, c.w.now), msg)
	}
}
