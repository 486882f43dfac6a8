package agent

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/loopkit/loopkit/internal/record"
)

// The result line of a Claude Code session, and the totals of a transcript.

func (c *claude) result(m *claudeMsg) {
	s := c.session(m.SessionID)
	s.gotResult = true
	if m.SessionID != "" {
		c.res.SessionID = strings.Clone(m.SessionID)
	}
	var text string
	if len(m.Result) > 0 && json.Unmarshal(m.Result, &text) == nil {
		c.res.FinalMessage = text
	}
	for _, d := range m.PermissionDenials {
		if i := c.calls.use(d.ToolUseID, d.ToolName, string(d.ToolInput), false); i >= 0 {
			c.calls.list[i].Denied, c.calls.list[i].IsError = true, true
		}
	}
	var usage *Usage
	if m.Usage != nil {
		u := m.Usage.usage()
		usage = &u
	}
	if usage == nil || usage.empty() {
		// A run cut at its --max-budget-usd (2.1.330) ends with every
		// figure of usage 0 and the calls counted in modelUsage only.
		if mu := modelUsage(m.ModelUsage); mu != nil {
			usage = mu
		}
	}
	if u := usage; u != nil {
		// A later result restates the session's totals; one lacking a
		// field does not blank what an earlier one said. The tokens are
		// usage's, and modelUsage's only when usage counts nothing:
		// testdata/agent-samples/README.md.
		s.ignored = append(s.ignored, u.Ignored...)
		setIf(&s.result.InputTokens, u.InputTokens)
		setIf(&s.result.OutputTokens, u.OutputTokens)
		setIf(&s.result.CacheReadTokens, u.CacheReadTokens)
		setIf(&s.result.CacheCreationTokens, u.CacheCreationTokens)
	}
	switch {
	case m.TotalCostUSD != nil:
		s.cost = m.TotalCostUSD.float()
	case m.CostUSD != nil:
		s.cost = m.CostUSD.float()
	}
	// an error_ subtype is an error even with is_error false (SDK results
	// of a budget reached have been seen so)
	if !m.IsError && !strings.HasPrefix(m.Subtype, "error_") {
		if m.Subtype == "" || m.Subtype == "success" {
			c.limited = nil // a later success: the limit did not stop the run
		}
		return
	}
	if m.Subtype == "success" || m.Subtype == "" || m.APIErrorStatus != nil {
		// An API error ends the run with subtype success and is_error.
		kind := ""
		if m.APIErrorStatus != nil {
			kind = kindOfCode(strconv.Itoa(*m.APIErrorStatus))
		}
		c.apiError(kind, text)
		return
	}
	msg := c.label + " result: " + m.Subtype
	var parts []string
	for _, e := range m.Errors {
		if e != "" {
			parts = append(parts, string(e))
		}
	}
	if len(parts) == 0 && text != "" {
		parts = append(parts, text)
	}
	if len(parts) > 0 {
		msg += ": " + summary(strings.Join(parts, "; "))
	}
	kind := "" // its own limits, not the API's
	switch m.Subtype {
	case "error_max_turns": // --max-turns
		kind = record.ErrorKindMaxTurns
	case "error_max_budget_usd": // --max-budget-usd
		kind = record.ErrorKindMaxBudget
	}
	c.res.errorText(msg, kind, c.w.now)
}

func setIf(dst **int64, v *int64) {
	if v != nil {
		n := *v
		*dst = &n
	}
}

func (c *claude) finish() *Result {
	for _, s := range c.sessions {
		for _, mu := range s.perMessage {
			s.messages.Add(mu)
		}
		u := s.messages
		if s.gotResult {
			// Per field: the result's total, else the messages' sum.
			for _, f := range [][2]**int64{
				{&u.InputTokens, &s.result.InputTokens}, {&u.OutputTokens, &s.result.OutputTokens},
				{&u.CacheReadTokens, &s.result.CacheReadTokens}, {&u.CacheCreationTokens, &s.result.CacheCreationTokens},
			} {
				if *f[1] != nil {
					*f[0] = *f[1]
				}
			}
		}
		// Cost stays unknown without a result: no price list is made up here.
		u.CostUSD = s.cost
		u.Ignored = append(u.Ignored, s.ignored...)
		c.res.Usage.Add(u)
	}
	if c.limited != nil {
		c.res.limit(c.limited.ResetsAt, c.limited.Evidence)
	}
	if c.res.FinalMessage == "" {
		c.res.FinalMessage = c.finalText()
	}
	// the last session's result (an init and a result naming different
	// sessions are two sessions: the last one ended)
	if n := len(c.sessions); n > 0 && !c.sessions[n-1].gotResult {
		c.res.Unfinished = "result line"
	}
	c.res.ToolCalls = c.calls.all()
	c.res.ToolCallsDropped = c.calls.dropped
	return &c.res
}
