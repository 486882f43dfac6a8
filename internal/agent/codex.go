package agent

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/loopkit/loopkit/internal/record"
)

// codexEvent is one line of `codex exec --json`.
type codexEvent struct {
	Type     string `json:"type"`
	ThreadID string `json:"thread_id"`
	// SessionID is on the older stream's first line, its config summary.
	SessionID string      `json:"session_id"`
	Usage     *codexUsage `json:"usage"`
	Item      *codexItem  `json:"item"`
	// Msg is the whole event of versions before thread.started:
	// {"id":"0","msg":{"type":"agent_message",…}} (codex_msg.go).
	Msg     *codexMsg   `json:"msg"`
	Error   *codexError `json:"error"`
	Message string      `json:"message"`
}

type codexUsage struct {
	InputTokens           *count `json:"input_tokens"`
	CachedInputTokens     *count `json:"cached_input_tokens"`
	CacheWriteInputTokens *count `json:"cache_write_input_tokens"`
	OutputTokens          *count `json:"output_tokens"`
	ReasoningOutputTokens *count `json:"reasoning_output_tokens"`
}

type codexError struct {
	Message string `json:"message"`
}

type codexItem struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	ItemType string `json:"item_type"` // codex before 0.44 named the field so
	Text     string `json:"text"`
	Message  string `json:"message"`
	Phase    string `json:"phase"` // agent_message: commentary, final_answer
	// command_execution
	Command          string     `json:"command"`
	AggregatedOutput headString `json:"aggregated_output"`
	ExitCode         *int       `json:"exit_code"`
	Status           string     `json:"status"`
	// file_change
	Changes []struct {
		Path string `json:"path"`
		Kind string `json:"kind"`
	} `json:"changes"`
	// mcp_tool_call
	Server    string        `json:"server"`
	Tool      string        `json:"tool"`
	Arguments argsSummary   `json:"arguments"`
	Result    resultSummary `json:"result"`
	Error     *codexError   `json:"error"`
	// web_search
	Query string `json:"query"`
	// collab_tool_call (subagents): tool is spawn_agent, wait, send_input…
	Prompt string `json:"prompt"`
}

// codex accumulates a `codex exec --json` stream.
type codex struct {
	res        Result
	cs         calls
	w          *penv
	finalPhase string // the last agent message of the final phase wins
	anyMessage string
	lastNotice string // the last retry notice ("Reconnecting... 2/5 …")
	completed  bool
	// turns counts turn.started not yet ended by turn.completed or
	// turn.failed
	turns int
	// thread is the latest thread.started's id; byThread each thread's
	// usage, in the order first seen (see turnCompleted).
	thread   string
	threads  []string
	byThread map[string]Usage
	// legacySum adds up the older stream's per-response token_count.
	legacySum Usage
}

func parseCodex(br *bufio.Reader, w *penv) (*Result, error) {
	c := &codex{w: w}
	c.cs.max = w.maxCalls
	lr := newLineReader(br, MaxLineBytes)
	for {
		l, err := lr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if l.long {
			w.skip(lr.n, fmt.Sprintf("longer than %d bytes", MaxLineBytes))
			continue
		}
		if len(l.b) == 0 {
			continue
		}
		var ev codexEvent
		if err := decodeLoose(l.b, &ev); err != nil {
			if l.torn {
				w.skip(lr.n, "torn last line")
			} else {
				w.skip(lr.n, "not JSON")
			}
			continue
		}
		c.apply(&ev)
	}
	res := &c.res
	res.FinalMessage = c.finalPhase
	if res.FinalMessage == "" {
		res.FinalMessage = c.anyMessage
	}
	for _, id := range c.threads {
		res.Usage.Add(c.byThread[id])
	}
	if c.lastNotice != "" && !c.completed && len(res.Errors) == 0 {
		// Only retry notices and no turn ended: say what it was retrying.
		res.errorText("codex: "+c.lastNotice, "", w.now)
	}
	if c.turns > 0 {
		res.Unfinished = "turn.completed"
	}
	res.ToolCalls = c.cs.all()
	res.ToolCallsDropped = c.cs.dropped
	return res, nil
}

// IsRetryNotice reports whether an agent's error message only says it is
// retrying (Codex prints "Reconnecting... 2/5 (…)" and, without network,
// "Reconnecting... waiting for network" forever): no failure yet, and no
// progress either.
func IsRetryNotice(msg string) bool {
	m := strings.TrimSpace(msg)
	return strings.HasPrefix(m, "Reconnecting") || strings.HasPrefix(m, "Retrying") || strings.HasPrefix(m, "retrying")
}

func (c *codex) apply(ev *codexEvent) {
	res := &c.res
	switch ev.Type {
	case "thread.started":
		if res.SessionID == "" {
			res.SessionID = strings.Clone(ev.ThreadID)
		}
		c.thread = strings.Clone(ev.ThreadID)
	case "turn.started":
		c.turns++
	case "turn.completed":
		c.completed = true
		c.turns--
		if ev.Usage != nil {
			c.threadUsage(ev.Usage.usage())
		}
	case "turn.failed":
		c.turns--
		msg := "codex turn.failed"
		if ev.Error != nil && ev.Error.Message != "" {
			msg += ": " + ev.Error.Message
			// The error event that said the same first is dropped: the
			// fatal message leads, once.
			res.Errors = slices.DeleteFunc(res.Errors, func(e string) bool { return e == "codex error: "+ev.Error.Message })
		}
		errs := res.Errors
		res.Errors = nil
		res.errorText(msg, "", c.w.now)
		res.Errors = append(res.Errors, errs...)
	case "error":
		if IsRetryNotice(ev.Message) {
			c.lastNotice = strings.Clone(ev.Message)
			return
		}
		res.errorText("codex error: "+ev.Message, "", c.w.now)
	case "":
		if ev.Msg != nil {
			c.legacy(ev.Msg)
		} else if ev.SessionID != "" && res.SessionID == "" {
			res.SessionID = strings.Clone(ev.SessionID)
		}
	case "item.started", "item.updated", "item.completed":
		if ev.Item != nil {
			c.item(ev.Item, ev.Type == "item.completed")
		}
	}
}

// mcpName is Codex's own name for an MCP tool: mcp__<server>__<tool>, with
// the server's dashes made underscores.
func mcpName(server, tool string) string {
	return "mcp__" + strings.ReplaceAll(server, "-", "_") + "__" + tool
}

func (c *codex) item(it *codexItem, completed bool) {
	res, cs := &c.res, &c.cs
	typ := it.Type
	if typ == "" {
		typ = it.ItemType
	}
	switch typ {
	case "agent_message", "assistant_message":
		if completed && it.Text != "" {
			c.anyMessage = strings.Clone(it.Text)
			if it.Phase == "" || it.Phase == "final_answer" {
				c.finalPhase = c.anyMessage
			}
		}
	case "error":
		// A non-fatal warning item ("Model metadata for `x` not found"):
		// the turn goes on, so it is a notice, never the step's error.
		if completed && it.Message != "" {
			res.Notices = append(res.Notices, "codex: "+record.HeadChars(it.Message, evidenceChars))
		}
	case "collab_tool_call":
		cs.use(it.ID, typ+":"+it.Tool, it.Prompt, false)
		if completed {
			cs.result(it.ID, it.Status, it.Status == "failed", false)
		}
	case "command_execution":
		cs.use(it.ID, typ, it.Command, false)
		if completed {
			failed := it.Status == "failed" || it.Status == "declined" || (it.ExitCode != nil && *it.ExitCode != 0)
			cs.result(it.ID, string(it.AggregatedOutput), failed, false)
		}
	case "file_change":
		parts := make([]string, 0, len(it.Changes))
		for _, ch := range it.Changes {
			parts = append(parts, ch.Kind+" "+ch.Path)
		}
		cs.use(it.ID, typ, strings.Join(parts, ", "), false)
		if completed {
			cs.result(it.ID, it.Status, it.Status == "failed", false)
		}
	case "mcp_tool_call":
		cs.use(it.ID, mcpName(it.Server, it.Tool), string(it.Arguments), false)
		if completed {
			out := string(it.Result)
			if it.Error != nil {
				out = it.Error.Message
			}
			cs.result(it.ID, out, it.Error != nil || it.Status == "failed", false)
		}
	case "web_search":
		cs.use(it.ID, typ, it.Query, false)
		if completed {
			cs.result(it.ID, it.Status, it.Status == "failed", false)
		}
	}
}

// threadUsage keeps a turn's usage as its thread's. Codex reports the
// thread's running total there, not the turn's (usage_from_last_total in
// codex-rs/exec/src/event_processor_with_jsonl_output.rs; a resumed thread
// reports its whole history: github.com/gitmoot/gitmoot/issues/661), so a
// later turn of the same thread (`codex exec resume` in the same step)
// replaces the earlier figure instead of adding to it.
func (c *codex) threadUsage(u Usage) {
	if c.byThread == nil {
		c.byThread = map[string]Usage{}
	}
	if _, seen := c.byThread[c.thread]; !seen {
		c.threads = append(c.threads, c.thread)
	}
	c.byThread[c.thread] = u
}

// usage is Codex's figures in the record's terms. Codex counts cached
// reads and cache writes inside input_tokens; Claude does not, and the
// record means Claude's figure, so both come off (never below 0).
func (u *codexUsage) usage() Usage {
	read, write := u.CachedInputTokens.int(), u.CacheWriteInputTokens.int()
	return Usage{InputTokens: minus(u.InputTokens.int(), read, write), OutputTokens: u.OutputTokens.int(), CacheReadTokens: read,
		CacheCreationTokens: write, ReasoningTokens: u.ReasoningOutputTokens.int()}
}

// minus is a total less the parts counted in it, never below 0. A figure
// out of range is left for Range to name: the total as it is, or unknown
// when a part is the bad one (a difference with it means nothing).
func minus(total *int64, parts ...*int64) *int64 {
	if total == nil || !inRange(*total) {
		return total
	}
	n := *total
	for _, p := range parts {
		if p == nil {
			continue
		}
		if !inRange(*p) {
			return nil
		}
		n -= *p
	}
	n = max(n, 0)
	return &n
}
