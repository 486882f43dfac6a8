package agent

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// codexEvent is one line of `codex exec --json`.
type codexEvent struct {
	Type     string `json:"type"`
	ThreadID string `json:"thread_id"`
	Usage    *struct {
		InputTokens       *int64 `json:"input_tokens"`
		CachedInputTokens *int64 `json:"cached_input_tokens"`
		OutputTokens      *int64 `json:"output_tokens"`
	} `json:"usage"`
	Item    *codexItem  `json:"item"`
	Error   *codexError `json:"error"`
	Message string      `json:"message"`
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
}

func parseCodex(br *bufio.Reader, w *warnings) (*Result, error) {
	var res Result
	var cs calls
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
		codexApply(&res, &cs, &ev)
	}
	res.ToolCalls = cs.all()
	return &res, nil
}

func codexApply(res *Result, cs *calls, ev *codexEvent) {
	switch ev.Type {
	case "thread.started":
		if res.SessionID == "" {
			res.SessionID = ev.ThreadID
		}
	case "turn.completed":
		if u := ev.Usage; u != nil {
			// Codex counts cached tokens inside input_tokens; Claude does
			// not, and the record means Claude's figure.
			var in *int64
			if u.InputTokens != nil {
				n := *u.InputTokens
				if u.CachedInputTokens != nil {
					n = max(n-*u.CachedInputTokens, 0) // never a negative count
				}
				in = &n
			}
			res.Usage.Add(Usage{InputTokens: in, OutputTokens: u.OutputTokens, CacheReadTokens: u.CachedInputTokens})
		}
	case "turn.failed":
		msg := "codex turn.failed"
		if ev.Error != nil && ev.Error.Message != "" {
			msg += ": " + ev.Error.Message
		}
		res.Errors = append(res.Errors, msg)
	case "error":
		res.Errors = append(res.Errors, "codex error: "+ev.Message)
	case "item.started", "item.updated", "item.completed":
		if ev.Item != nil {
			codexItemEvent(res, cs, ev.Item, ev.Type == "item.completed")
		}
	}
}

func codexItemEvent(res *Result, cs *calls, it *codexItem, completed bool) {
	typ := it.Type
	if typ == "" {
		typ = it.ItemType
	}
	switch typ {
	case "agent_message", "assistant_message":
		if completed && it.Text != "" {
			res.FinalMessage = it.Text
		}
	case "error":
		if completed {
			res.Errors = append(res.Errors, "codex error: "+it.Message)
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
		cs.use(it.ID, "mcp__"+it.Server+"__"+it.Tool, string(it.Arguments), false)
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
