package agent

import (
	"bufio"
	"strconv"
	"strings"
)

// copilotEvent is one line of `copilot -p … --output-format json`: session
// events with their payload under "data", and a closing "result".
type copilotEvent struct {
	Type      string `json:"type"`
	Ephemeral bool   `json:"ephemeral"`
	SessionID string `json:"sessionId"`
	ExitCode  *int   `json:"exitCode"`
	Data      *struct {
		SessionID    string        `json:"sessionId"`
		MessageID    string        `json:"messageId"`
		Model        string        `json:"model"`
		Content      string        `json:"content"`
		OutputTokens *count        `json:"outputTokens"`
		ToolRequests []struct{}    `json:"toolRequests"`
		ToolCallID   string        `json:"toolCallId"`
		ToolName     string        `json:"toolName"`
		Arguments    argsSummary   `json:"arguments"`
		Success      *bool         `json:"success"`
		Result       resultSummary `json:"result"`
		Error        resultSummary `json:"error"`
		Message      string        `json:"message"`
		ErrorType    string        `json:"errorType"`
		StatusCode   *int          `json:"statusCode"`
	} `json:"data"`
}

type copilot struct {
	res  Result
	cs   calls
	w    *penv
	seen map[string]bool
}

// Fast path: streamed deltas carry nothing the totals need.
var copilotEphemeral = []byte(`"ephemeral":true`)

func parseCopilot(br *bufio.Reader, w *penv) (*Result, error) {
	c := &copilot{w: w, seen: map[string]bool{}}
	c.cs.max = w.maxCalls
	err := eachJSONLine(br, w, func(b []byte) error {
		if len(b) < 4096 && strings.Contains(string(b), string(copilotEphemeral)) && strings.Contains(string(b), "_delta") {
			return nil
		}
		var ev copilotEvent
		if err := decodeLoose(b, &ev); err != nil {
			return err
		}
		c.event(&ev)
		return nil
	}, nil)
	if err != nil {
		return nil, err
	}
	c.res.ToolCalls = c.cs.all()
	c.res.ToolCallsDropped = c.cs.dropped
	return &c.res, nil
}

func (c *copilot) event(ev *copilotEvent) {
	res := &c.res
	if ev.SessionID != "" {
		res.SessionID = strings.Clone(ev.SessionID)
	}
	d := ev.Data
	switch {
	case ev.Type == "result":
		if ev.ExitCode != nil && *ev.ExitCode != 0 && len(res.Errors) == 0 {
			res.errorText("copilot exited "+strconv.Itoa(*ev.ExitCode), "", c.w.now)
		}
	case d == nil:
	case ev.Type == "session.start" && d.SessionID != "" && res.SessionID == "":
		res.SessionID = strings.Clone(d.SessionID)
	case ev.Type == "assistant.message":
		if d.Model != "" {
			res.Model = strings.Clone(d.Model)
		}
		// Copilot reports output tokens per message and no input tokens:
		// the output figure is its own, the others stay unknown.
		if d.OutputTokens != nil && (d.MessageID == "" || !c.seen[d.MessageID]) {
			c.seen[strings.Clone(d.MessageID)] = true
			res.Usage.Add(Usage{OutputTokens: d.OutputTokens.int()})
		}
		if d.Content != "" {
			res.FinalMessage = strings.Clone(d.Content)
		}
	case ev.Type == "tool.execution_start":
		c.cs.use(d.ToolCallID, d.ToolName, string(d.Arguments), false)
	case ev.Type == "tool.execution_complete":
		failed := d.Success != nil && !*d.Success
		out := string(d.Result)
		if failed && d.Error != "" {
			out = string(d.Error)
		}
		c.cs.result(d.ToolCallID, out, failed, false)
	case strings.HasSuffix(ev.Type, ".error") || ev.Type == "error":
		msg := d.Message
		if msg == "" {
			msg = string(d.Error)
		}
		kind := ""
		if d.StatusCode != nil {
			kind = kindOfCode(strconv.Itoa(*d.StatusCode))
		}
		res.errorText("copilot: "+msg, kind, c.w.now)
	}
}
