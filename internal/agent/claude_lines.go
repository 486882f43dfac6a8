package agent

import "encoding/json"

// The shapes of the Claude Code stream-json lines loop-step decodes.

// claudeMsg is the part of a Claude Code message line loop-step reads;
// encoding/json skips the rest without keeping it.
type claudeMsg struct {
	Type            string          `json:"type"`
	Subtype         string          `json:"subtype"`
	SessionID       string          `json:"session_id"`
	Model           string          `json:"model"`
	ParentToolUseID *string         `json:"parent_tool_use_id"`
	Message         *claudeMessage  `json:"message"`
	Result          json.RawMessage `json:"result"`
	IsError         bool            `json:"is_error"`
	TotalCostUSD    *usd            `json:"total_cost_usd"`
	CostUSD         *usd            `json:"cost_usd"` // CLIs before 1.0.x
	Usage           *claudeUsage    `json:"usage"`
	// ModelUsage is the result's per-model count, read only when usage is
	// empty (claude.go).
	ModelUsage map[string]claudeModelUsage `json:"modelUsage"`
	// Errors lists why an error_* result failed ("Permission denied: …").
	Errors []resultSummary `json:"errors"`
	// Error names a failed API call on a synthetic assistant message
	// ("authentication_failed", "rate_limit", …).
	Error          string `json:"error"`
	APIErrorStatus *int   `json:"api_error_status"`
	// APIError says more than Error does: "connection_failed" comes with
	// Error "server_error" when no API answered at all.
	APIError string `json:"api_error"`
	// PermissionDenials: the tool calls the CLI refused under its
	// permission mode (on the result line).
	PermissionDenials []struct {
		ToolName  string      `json:"tool_name"`
		ToolUseID string      `json:"tool_use_id"`
		ToolInput argsSummary `json:"tool_input"`
	} `json:"permission_denials"`
	// Cursor's tool_call events: {"shellToolCall":{"args":…,"result":…}}.
	CallID        string                    `json:"call_id"`
	ToolCall      map[string]cursorToolCall `json:"tool_call"`
	RateLimitInfo *struct {
		Status         string   `json:"status"`
		ResetsAt       *float64 `json:"resetsAt"` // Unix seconds
		IsUsingOverage bool     `json:"isUsingOverage"`
	} `json:"rate_limit_info"`
}

type claudeMessage struct {
	ID      string        `json:"id"`
	Model   string        `json:"model"`
	Content []claudeBlock `json:"content"`
	Usage   *claudeUsage  `json:"usage"`
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
	// When the line was scanned (claude_scan.go), the raw values of the
	// text (decoded only if it is the last), the input and the content
	// (summarised only for a call that is kept).
	textRaw, inputRaw, contentRaw []byte
}

// args is the tool input's summary text.
func (b *claudeBlock) args() string {
	if b.inputRaw != nil {
		return compactJSON(b.inputRaw)
	}
	return string(b.Input)
}

// result is the tool result's summary text.
func (b *claudeBlock) result() string {
	if b.contentRaw != nil {
		return textOf(b.contentRaw)
	}
	return string(b.Content)
}

type claudeUsage struct {
	InputTokens         *count `json:"input_tokens"`
	OutputTokens        *count `json:"output_tokens"`
	CacheReadTokens     *count `json:"cache_read_input_tokens"`
	CacheCreationTokens *count `json:"cache_creation_input_tokens"`
	// Current cursor-agent puts camelCase figures on its result line
	// (input without the cache reads and writes, as Claude's).
	CursorInput      *count `json:"inputTokens"`
	CursorOutput     *count `json:"outputTokens"`
	CursorCacheRead  *count `json:"cacheReadTokens"`
	CursorCacheWrite *count `json:"cacheWriteTokens"`
}

type claudeModelUsage struct {
	InputTokens         *count `json:"inputTokens"`
	OutputTokens        *count `json:"outputTokens"`
	CacheReadTokens     *count `json:"cacheReadInputTokens"`
	CacheCreationTokens *count `json:"cacheCreationInputTokens"`
}

// modelUsage sums a result's modelUsage (nil when it counts nothing).
func modelUsage(m map[string]claudeModelUsage) *Usage {
	var sum Usage
	for _, u := range m {
		sum.Add(Usage{InputTokens: u.InputTokens.int(), OutputTokens: u.OutputTokens.int(),
			CacheReadTokens: u.CacheReadTokens.int(), CacheCreationTokens: u.CacheCreationTokens.int()})
	}
	if sum.empty() && len(sum.Ignored) == 0 {
		return nil
	}
	return &sum
}

// empty says whether no token figure is above zero.
func (u *Usage) empty() bool {
	for _, v := range []*int64{u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheCreationTokens} {
		if v != nil && *v > 0 {
			return false
		}
	}
	return true
}

func (u *claudeUsage) usage() Usage {
	return Usage{InputTokens: either(u.InputTokens, u.CursorInput), OutputTokens: either(u.OutputTokens, u.CursorOutput),
		CacheReadTokens: either(u.CacheReadTokens, u.CursorCacheRead), CacheCreationTokens: either(u.CacheCreationTokens, u.CursorCacheWrite)}
}

func either(a, b *count) *int64 {
	if a != nil {
		return a.int()
	}
	return b.int()
}
