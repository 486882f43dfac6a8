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
	TotalCostUSD    *float64        `json:"total_cost_usd"`
	CostUSD         *float64        `json:"cost_usd"` // CLIs before 1.0.x
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
	InputTokens         *int64 `json:"input_tokens"`
	OutputTokens        *int64 `json:"output_tokens"`
	CacheReadTokens     *int64 `json:"cache_read_input_tokens"`
	CacheCreationTokens *int64 `json:"cache_creation_input_tokens"`
	// Current cursor-agent puts camelCase figures on its result line
	// (input without the cache reads and writes, as Claude's).
	CursorInput      *int64 `json:"inputTokens"`
	CursorOutput     *int64 `json:"outputTokens"`
	CursorCacheRead  *int64 `json:"cacheReadTokens"`
	CursorCacheWrite *int64 `json:"cacheWriteTokens"`
}

type claudeModelUsage struct {
	InputTokens         int64 `json:"inputTokens"`
	OutputTokens        int64 `json:"outputTokens"`
	CacheReadTokens     int64 `json:"cacheReadInputTokens"`
	CacheCreationTokens int64 `json:"cacheCreationInputTokens"`
}

// modelUsage sums a result's modelUsage, as a claudeUsage (nil when it
// counts nothing).
func modelUsage(m map[string]claudeModelUsage) *claudeUsage {
	var in, out, read, write int64
	for _, u := range m {
		in, out, read, write = in+u.InputTokens, out+u.OutputTokens, read+u.CacheReadTokens, write+u.CacheCreationTokens
	}
	if in == 0 && out == 0 && read == 0 && write == 0 {
		return nil
	}
	return &claudeUsage{InputTokens: &in, OutputTokens: &out, CacheReadTokens: &read, CacheCreationTokens: &write}
}

// empty says whether no token figure is above zero.
func (u *claudeUsage) empty() bool {
	x := u.usage()
	for _, v := range []*int64{x.InputTokens, x.OutputTokens, x.CacheReadTokens, x.CacheCreationTokens} {
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

func either(a, b *int64) *int64 {
	if a != nil {
		return a
	}
	return b
}
