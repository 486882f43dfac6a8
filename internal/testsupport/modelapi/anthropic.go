package modelapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// anthropicWire is the Anthropic Messages API (POST /v1/messages), the
// shapes of anthropic-sdk-go's Message and MessageStreamEventUnion.
type anthropicWire struct{}

func (anthropicWire) parse(body []byte) (string, bool, int, error) {
	var req struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return "", false, 0, err
	}
	n := 0
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			n++
		}
	}
	return req.Model, req.Stream, n, nil
}

func anthropicUsage(u Usage, output int64) map[string]any {
	return map[string]any{
		"input_tokens":                u.Input,
		"output_tokens":               output,
		"cache_read_input_tokens":     u.CacheRead,
		"cache_creation_input_tokens": u.CacheCreation,
		"cache_creation": map[string]any{
			"ephemeral_5m_input_tokens": u.CacheCreation,
			"ephemeral_1h_input_tokens": 0,
		},
		"server_tool_use": map[string]any{"web_search_requests": 0, "web_fetch_requests": 0},
		"service_tier":    "standard",
	}
}

func anthropicBlocks(t Turn, id string) []map[string]any {
	var blocks []map[string]any
	if t.Reasoning != "" {
		blocks = append(blocks, map[string]any{"type": "thinking", "thinking": t.Reasoning, "signature": "sig-" + id})
	}
	if t.Text != "" {
		blocks = append(blocks, map[string]any{"type": "text", "text": t.Text})
	}
	for i, c := range t.ToolCalls {
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%s_%d", id, i+1), "name": c.Name, "input": c.args()})
	}
	return blocks
}

func stopReason(t Turn) string {
	if len(t.ToolCalls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

func (anthropicWire) message(model string, t Turn, id string, content []map[string]any, usage map[string]any, stop any) map[string]any {
	if content == nil {
		content = []map[string]any{}
	}
	return map[string]any{
		"id": "msg_scripted_" + id, "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
	}
}

func (a anthropicWire) writeTurn(w http.ResponseWriter, model string, stream bool, t Turn, id string) {
	w.Header().Set("request-id", "req_scripted_"+id)
	if !stream {
		writeJSON(w, 200, a.message(model, t, id, anthropicBlocks(t, id), anthropicUsage(t.Usage, t.Usage.allOutput()), stopReason(t)))
		return
	}
	sseHeaders(w)
	a.start(w, model, t, id)
	for i, b := range anthropicBlocks(t, id) {
		start := map[string]any{}
		var delta map[string]any
		switch b["type"] {
		case "thinking":
			start = map[string]any{"type": "thinking", "thinking": "", "signature": ""}
			delta = map[string]any{"type": "thinking_delta", "thinking": b["thinking"]}
		case "text":
			start = map[string]any{"type": "text", "text": ""}
			delta = map[string]any{"type": "text_delta", "text": b["text"]}
		case "tool_use":
			start = map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}
			delta = map[string]any{"type": "input_json_delta", "partial_json": string(b["input"].(json.RawMessage))}
		}
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": start})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": delta})
		if b["type"] == "thinking" {
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "signature_delta", "signature": b["signature"]}})
		}
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	sse(w, "message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stopReason(t), "stop_sequence": nil},
		"usage": map[string]any{"input_tokens": t.Usage.Input, "output_tokens": t.Usage.allOutput(),
			"cache_read_input_tokens": t.Usage.CacheRead, "cache_creation_input_tokens": t.Usage.CacheCreation}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}

func (a anthropicWire) start(w http.ResponseWriter, model string, t Turn, id string) {
	sse(w, "message_start", map[string]any{"type": "message_start", "message": a.message(model, t, id, nil, anthropicUsage(t.Usage, 1), nil)})
	sse(w, "ping", map[string]any{"type": "ping"})
}

func (a anthropicWire) writeStall(w http.ResponseWriter, model string, t Turn, id string) {
	sseHeaders(w)
	a.start(w, model, t, id)
	sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
	sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": "Let me look"}})
}

func (anthropicWire) writeMalformed(w http.ResponseWriter) {
	fmt.Fprintf(w, "event: content_block_delta\ndata: %s\n\n", malformedData)
}

var anthropicErrorTypes = map[string]string{
	FaultAuth:       "authentication_error",
	FaultPermission: "permission_error",
	FaultRateLimit:  "rate_limit_error",
	FaultServer:     "api_error",
	FaultOverloaded: "overloaded_error",
	FaultContext:    "invalid_request_error",
}

func (anthropicWire) writeError(w http.ResponseWriter, kind string, retryAfter int) {
	h := w.Header()
	h.Set("request-id", "req_scripted_fault")
	h.Set("x-should-retry", fmt.Sprint(kind == FaultRateLimit || kind == FaultOverloaded || kind == FaultServer))
	retryHeaders(w, kind, retryAfter)
	if kind == FaultRateLimit {
		reset := time.Now().Add(time.Duration(retryAfter) * time.Second).UTC().Format(time.RFC3339)
		h.Set("anthropic-ratelimit-requests-limit", "50")
		h.Set("anthropic-ratelimit-requests-remaining", "0")
		h.Set("anthropic-ratelimit-requests-reset", reset)
		h.Set("anthropic-ratelimit-input-tokens-limit", "30000")
		h.Set("anthropic-ratelimit-input-tokens-remaining", "0")
		h.Set("anthropic-ratelimit-input-tokens-reset", reset)
		h.Set("anthropic-ratelimit-tokens-limit", "38000")
		h.Set("anthropic-ratelimit-tokens-remaining", "0")
		h.Set("anthropic-ratelimit-tokens-reset", reset)
	}
	writeJSON(w, statusOf(kind, true), map[string]any{"type": "error",
		"error":      map[string]any{"type": anthropicErrorTypes[kind], "message": faultMessages[kind]},
		"request_id": "req_scripted_fault"})
}
