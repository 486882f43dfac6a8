package agent

import (
	"strings"

	"github.com/loopkit/loopkit/internal/record"
)

// calls collects tool calls in the order they were made, keyed by the
// agent's call id so a call seen twice (a repeated line, a started and then
// completed item) is counted once and matched with its result.
//
// Only the first max calls are kept (0: DefaultMaxToolCalls); later ones are
// counted in dropped, and results of calls not kept are ignored.
type calls struct {
	list    []record.ToolCall
	index   map[string]int
	max     int
	dropped int
	// droppedIDs: a dropped call seen again (Codex's item.started, then
	// item.completed) is not counted twice
	droppedIDs map[string]struct{}
}

// use records a call; a known id only fills in what was missing. It
// returns the call's index, -1 when the call was dropped.
func (c *calls) use(id, name, args string, subagent bool) int {
	if i, ok := c.index[id]; ok && id != "" {
		tc := &c.list[i]
		if tc.ToolName == "" || tc.ToolName == unknownTool {
			tc.ToolName = summary(name)
		}
		if tc.ArgumentsSummary == "" {
			tc.ArgumentsSummary = summary(args)
		}
		return i
	}
	if c.index == nil {
		c.index = map[string]int{}
	}
	if c.max <= 0 {
		c.max = DefaultMaxToolCalls
	}
	if len(c.list) >= c.max {
		if id != "" {
			if _, seen := c.droppedIDs[id]; seen {
				return -1
			}
			if c.droppedIDs == nil {
				c.droppedIDs = map[string]struct{}{}
			}
			c.droppedIDs[strings.Clone(id)] = struct{}{}
		}
		c.dropped++
		return -1
	}
	// The name is the agent's text like the summaries (docs/records.md):
	// its first 200 characters, copied from what may be a long line.
	name = summary(name)
	c.list = append(c.list, record.ToolCall{ToolName: name, ArgumentsSummary: summary(args), Subagent: subagent})
	if id != "" {
		c.index[id] = len(c.list) - 1
	}
	return len(c.list) - 1
}

// wants reports whether the summaries of call id would be kept: the
// call is known, or there is room for it. Past the limit a call is only
// counted, so its summaries need not be made.
func (c *calls) wants(id string) bool {
	if _, ok := c.index[id]; ok && id != "" {
		return true
	}
	return c.max <= 0 || len(c.list) < c.max
}

// unknownTool names a call whose result arrived without its request (the
// request line was skipped): the result is still worth keeping.
const unknownTool = "(unknown)"

// result records the outcome of call id.
func (c *calls) result(id, result string, isError, subagent bool) {
	i, ok := c.index[id]
	if !ok || id == "" {
		if len(c.list) >= c.max && c.max > 0 {
			return // a dropped call's result, or one we could not keep
		}
		i = c.use(id, unknownTool, "", subagent)
	}
	c.list[i].ResultSummary = summary(result)
	c.list[i].IsError = isError
}

// denyIf marks call id denied (and failed) when denied says so of its
// name; a call not kept is left alone.
func (c *calls) denyIf(id string, denied func(name string) bool) {
	if i, ok := c.index[id]; ok && id != "" && denied(c.list[i].ToolName) {
		c.list[i].Denied, c.list[i].IsError = true, true
	}
}

// all returns the calls, never nil (the record's tool_calls is a list).
func (c *calls) all() []record.ToolCall {
	if c.list == nil {
		return []record.ToolCall{}
	}
	return c.list
}

// summary is a tool call summary: the first 200 characters, copied, so
// that a summary never keeps a whole multi-kilobyte argument alive.
func summary(s string) string {
	return strings.Clone(record.HeadChars(s, record.SummaryChars))
}
