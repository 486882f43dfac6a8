package agent

import (
	"encoding/json"
	"slices"
	"strings"
)

// codexMsg is an event of `codex exec --json` before thread.started and
// item.* replaced it (openai/codex#4525, September 2025): the protocol's
// own events, one a line as {"id":"0","msg":{"type":"exec_command_begin",
// …}}, after a line of the config (with the session_id since
// openai/codex#3861) and one echoing the prompt, which have no msg.
type codexMsg struct {
	Type             string  `json:"type"`
	Message          string  `json:"message"`            // agent_message, error, stream_error
	LastAgentMessage *string `json:"last_agent_message"` // task_complete
	SessionID        string  `json:"session_id"`         // session_configured
	Model            string  `json:"model"`
	CallID           string  `json:"call_id"`
	// exec_command_*: the argv, then its output and status
	Command          json.RawMessage `json:"command"`
	AggregatedOutput headString      `json:"aggregated_output"`
	Stdout           headString      `json:"stdout"`
	Stderr           headString      `json:"stderr"`
	ExitCode         *int            `json:"exit_code"`
	// patch_apply_*: path to {"add"|"update"|"delete": …}
	Changes map[string]map[string]json.RawMessage `json:"changes"`
	Success *bool                                 `json:"success"`
	// mcp_tool_call_*: the result is {"Ok": …} or {"Err": "…"}
	Invocation *struct {
		Server    string      `json:"server"`
		Tool      string      `json:"tool"`
		Arguments argsSummary `json:"arguments"`
	} `json:"invocation"`
	Result *struct {
		Ok  resultSummary `json:"Ok"`
		Err *string       `json:"Err"`
	} `json:"result"`
	Query string `json:"query"` // web_search_*
	// token_count: first flat, the usage of one model response; later
	// under info, the session's running total.
	codexUsage
	Info *struct {
		Total *codexUsage `json:"total_token_usage"`
	} `json:"info"`
}

// legacy reads one event of the older stream into the same figures as the
// newer one's.
func (c *codex) legacy(m *codexMsg) {
	res, cs := &c.res, &c.cs
	switch m.Type {
	case "session_configured":
		if res.SessionID == "" {
			res.SessionID = strings.Clone(m.SessionID)
		}
		if m.Model != "" {
			res.Model = strings.Clone(m.Model)
		}
	case "agent_message":
		if m.Message != "" {
			c.anyMessage = strings.Clone(m.Message)
		}
	case "task_complete":
		c.completed = true
		if m.LastAgentMessage != nil && *m.LastAgentMessage != "" {
			c.finalPhase = strings.Clone(*m.LastAgentMessage)
		}
	case "token_count":
		switch {
		case m.Info != nil && m.Info.Total != nil:
			c.legacySum = Usage{}
			c.threadUsage(m.Info.Total.usage())
		case m.InputTokens != nil || m.OutputTokens != nil:
			c.legacySum.Add(m.codexUsage.usage())
			c.threadUsage(c.legacySum)
		}
	case "error":
		c.apply(&codexEvent{Type: "error", Message: m.Message})
	case "stream_error": // "stream error: …; retrying 1/5 in 200ms…"
		c.lastNotice = strings.Clone(m.Message)
	case "exec_command_begin":
		var argv []string
		cmd := string(m.Command)
		if json.Unmarshal(m.Command, &argv) == nil {
			cmd = strings.Join(argv, " ")
		}
		cs.use(m.CallID, "command_execution", cmd, false)
	case "exec_command_end":
		out := string(m.AggregatedOutput)
		if out == "" {
			out = string(m.Stdout) + string(m.Stderr)
		}
		cs.result(m.CallID, out, m.ExitCode != nil && *m.ExitCode != 0, false)
	case "patch_apply_begin":
		parts := make([]string, 0, len(m.Changes))
		for path, ch := range m.Changes {
			for kind := range ch {
				parts = append(parts, kind+" "+path)
			}
		}
		slices.Sort(parts)
		cs.use(m.CallID, "file_change", strings.Join(parts, ", "), false)
	case "patch_apply_end":
		failed := m.Success != nil && !*m.Success
		cs.result(m.CallID, string(m.Stdout)+string(m.Stderr), failed, false)
	case "mcp_tool_call_begin", "mcp_tool_call_end":
		if m.Invocation == nil {
			return
		}
		cs.use(m.CallID, mcpName(m.Invocation.Server, m.Invocation.Tool), string(m.Invocation.Arguments), false)
		if r := m.Result; m.Type == "mcp_tool_call_end" && r != nil {
			if r.Err != nil {
				cs.result(m.CallID, *r.Err, true, false)
			} else {
				cs.result(m.CallID, string(r.Ok), false, false)
			}
		}
	case "web_search_begin", "web_search_end":
		cs.use(m.CallID, "web_search", m.Query, false)
	}
}
