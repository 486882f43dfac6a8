package modelapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// responsesWire is the OpenAI Responses API (POST /v1/responses), Codex's
// wire: the shapes of openai-go's responses.Response and its stream events.
type responsesWire struct{}

func (responsesWire) parse(body []byte) (string, bool, int, error) {
	var req struct {
		Model  string          `json:"model"`
		Stream bool            `json:"stream"`
		Input  json.RawMessage `json:"input"` // a string or a list of items
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return "", false, 0, err
	}
	var items []json.RawMessage
	json.Unmarshal(req.Input, &items)
	// a model turn is a run of items the model produced
	n, inModel := 0, false
	for _, raw := range items {
		var it struct{ Type, Role string }
		json.Unmarshal(raw, &it)
		model := it.Role == "assistant" || it.Type == "function_call" || it.Type == "reasoning" || it.Type == "custom_tool_call" || it.Type == "local_shell_call"
		if model && !inModel {
			n++
		}
		inModel = model
	}
	return req.Model, req.Stream, n, nil
}

func responsesUsage(u Usage) map[string]any {
	in := u.Input + u.CacheRead + u.CacheCreation
	return map[string]any{
		"input_tokens":          in,
		"input_tokens_details":  map[string]any{"cached_tokens": u.CacheRead},
		"output_tokens":         u.allOutput(),
		"output_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning},
		"total_tokens":          in + u.allOutput(),
	}
}

func responsesItems(t Turn, id string) []map[string]any {
	var items []map[string]any
	if t.Reasoning != "" {
		items = append(items, map[string]any{"type": "reasoning", "id": "rs_" + id, "summary": []any{map[string]any{"type": "summary_text", "text": t.Reasoning}}})
	}
	if t.Text != "" {
		items = append(items, map[string]any{"type": "message", "id": "msg_" + id, "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": t.Text, "annotations": []any{}}}})
	}
	for i, c := range t.ToolCalls {
		items = append(items, map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%s_%d", id, i+1), "call_id": fmt.Sprintf("call_%s_%d", id, i+1),
			"name": c.Name, "arguments": string(c.args()), "status": "completed"})
	}
	return items
}

func (responsesWire) response(model, id, status string, output []map[string]any, usage any) map[string]any {
	if output == nil {
		output = []map[string]any{}
	}
	return map[string]any{"id": "resp_" + id, "object": "response", "created_at": time.Now().Unix(), "status": status,
		"model": model, "output": output, "usage": usage, "parallel_tool_calls": true, "tool_choice": "auto", "tools": []any{}}
}

func (r responsesWire) writeTurn(w http.ResponseWriter, model string, stream bool, t Turn, id string) {
	items := responsesItems(t, id)
	if !stream {
		writeJSON(w, 200, r.response(model, id, "completed", items, responsesUsage(t.Usage)))
		return
	}
	sseHeaders(w)
	seq := 0
	ev := func(v map[string]any) {
		v["sequence_number"] = seq
		seq++
		sse(w, v["type"].(string), v)
	}
	ev(map[string]any{"type": "response.created", "response": r.response(model, id, "in_progress", nil, nil)})
	ev(map[string]any{"type": "response.in_progress", "response": r.response(model, id, "in_progress", nil, nil)})
	for i, it := range items {
		switch it["type"] {
		case "message":
			added := map[string]any{"type": "message", "id": it["id"], "status": "in_progress", "role": "assistant", "content": []any{}}
			ev(map[string]any{"type": "response.output_item.added", "output_index": i, "item": added})
			part := map[string]any{"type": "output_text", "text": "", "annotations": []any{}}
			ev(map[string]any{"type": "response.content_part.added", "item_id": it["id"], "output_index": i, "content_index": 0, "part": part})
			ev(map[string]any{"type": "response.output_text.delta", "item_id": it["id"], "output_index": i, "content_index": 0, "delta": t.Text, "logprobs": []any{}})
			ev(map[string]any{"type": "response.output_text.done", "item_id": it["id"], "output_index": i, "content_index": 0, "text": t.Text, "logprobs": []any{}})
			part["text"] = t.Text
			ev(map[string]any{"type": "response.content_part.done", "item_id": it["id"], "output_index": i, "content_index": 0, "part": part})
		case "function_call":
			added := map[string]any{"type": "function_call", "id": it["id"], "call_id": it["call_id"], "name": it["name"], "arguments": "", "status": "in_progress"}
			ev(map[string]any{"type": "response.output_item.added", "output_index": i, "item": added})
			ev(map[string]any{"type": "response.function_call_arguments.delta", "item_id": it["id"], "output_index": i, "delta": it["arguments"]})
			ev(map[string]any{"type": "response.function_call_arguments.done", "item_id": it["id"], "output_index": i, "arguments": it["arguments"], "name": it["name"]})
		default:
			ev(map[string]any{"type": "response.output_item.added", "output_index": i, "item": it})
		}
		ev(map[string]any{"type": "response.output_item.done", "output_index": i, "item": it})
	}
	ev(map[string]any{"type": "response.completed", "response": r.response(model, id, "completed", items, responsesUsage(t.Usage))})
}

func (r responsesWire) writeStall(w http.ResponseWriter, model string, t Turn, id string) {
	sseHeaders(w)
	sse(w, "response.created", map[string]any{"type": "response.created", "sequence_number": 0, "response": r.response(model, id, "in_progress", nil, nil)})
	item := map[string]any{"type": "message", "id": "msg_" + id, "status": "in_progress", "role": "assistant", "content": []any{}}
	sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": item})
	sse(w, "response.output_text.delta", map[string]any{"type": "response.output_text.delta", "sequence_number": 2, "item_id": "msg_" + id, "output_index": 0, "content_index": 0, "delta": "Let me look", "logprobs": []any{}})
}

func (responsesWire) writeMalformed(w http.ResponseWriter) {
	fmt.Fprintf(w, "event: response.output_text.delta\ndata: %s\n\n", malformedData)
}

func (responsesWire) writeError(w http.ResponseWriter, kind string, retryAfter int) {
	openaiError(w, kind, retryAfter)
}

// openaiError is OpenAI's error body, with its x-ratelimit-* headers on a
// 429.
func openaiError(w http.ResponseWriter, kind string, retryAfter int) {
	h := w.Header()
	h.Set("x-request-id", "req_scripted_fault")
	retryHeaders(w, kind, retryAfter)
	typ, code := "server_error", any(nil)
	switch kind {
	case FaultAuth:
		typ, code = "invalid_request_error", "invalid_api_key"
	case FaultPermission:
		typ, code = "invalid_request_error", "model_not_found"
	case FaultRateLimit:
		typ, code = "requests", "rate_limit_exceeded"
		h.Set("x-ratelimit-limit-requests", "50")
		h.Set("x-ratelimit-remaining-requests", "0")
		h.Set("x-ratelimit-reset-requests", fmt.Sprintf("%ds", retryAfter))
		h.Set("x-ratelimit-limit-tokens", "30000")
		h.Set("x-ratelimit-remaining-tokens", "0")
		h.Set("x-ratelimit-reset-tokens", fmt.Sprintf("%ds", retryAfter))
	case FaultContext:
		typ, code = "invalid_request_error", "context_length_exceeded"
	}
	msg := faultMessages[kind]
	switch kind {
	case FaultAuth:
		msg = "Incorrect API key provided: sk-scrip***. You can find your API key at https://platform.openai.com/account/api-keys."
	case FaultOverloaded:
		msg = "The server is overloaded or not ready yet."
	case FaultContext:
		msg = "Your input exceeds the context window of this model. Please adjust your input and try again."
	}
	writeJSON(w, statusOf(kind, false), map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code}})
}

// chatWire is OpenAI Chat Completions (POST /v1/chat/completions), what
// opencode's openai-compatible provider speaks: openai-go's ChatCompletion
// and ChatCompletionChunk.
type chatWire struct{}

// parse reads a Chat Completions request as a Messages one: the same
// model, stream and messages fields.
func (chatWire) parse(body []byte) (string, bool, int, error) {
	return anthropicWire{}.parse(body)
}

func chatUsage(u Usage) map[string]any {
	in := u.Input + u.CacheRead + u.CacheCreation
	return map[string]any{
		"prompt_tokens": in, "completion_tokens": u.allOutput(), "total_tokens": in + u.allOutput(),
		"prompt_tokens_details":     map[string]any{"cached_tokens": u.CacheRead},
		"completion_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning},
	}
}

func finishReason(t Turn) string {
	if len(t.ToolCalls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

func chatToolCalls(t Turn, id string, withIndex bool) []map[string]any {
	var calls []map[string]any
	for i, c := range t.ToolCalls {
		call := map[string]any{"id": fmt.Sprintf("call_%s_%d", id, i+1), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": string(c.args())}}
		if withIndex {
			call["index"] = i
		}
		calls = append(calls, call)
	}
	return calls
}

func (chatWire) writeTurn(w http.ResponseWriter, model string, stream bool, t Turn, id string) {
	created := time.Now().Unix()
	if !stream {
		msg := map[string]any{"role": "assistant", "content": t.Text, "refusal": nil}
		if calls := chatToolCalls(t, id, false); calls != nil {
			msg["tool_calls"] = calls
		}
		writeJSON(w, 200, map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finishReason(t), "logprobs": nil}},
			"usage":   chatUsage(t.Usage)})
		return
	}
	sseHeaders(w)
	chunk := func(delta map[string]any, finish any) {
		sse(w, "", map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": nil}}})
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	if t.Reasoning != "" {
		chunk(map[string]any{"reasoning_content": t.Reasoning}, nil)
	}
	if t.Text != "" {
		chunk(map[string]any{"content": t.Text}, nil)
	}
	for _, c := range chatToolCalls(t, id, true) {
		chunk(map[string]any{"tool_calls": []any{c}}, nil)
	}
	chunk(map[string]any{}, finishReason(t))
	sse(w, "", map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion.chunk", "created": created, "model": model,
		"choices": []any{}, "usage": chatUsage(t.Usage)})
	fmt.Fprint(w, "data: [DONE]\n\n")
	flush(w)
}

func (chatWire) writeStall(w http.ResponseWriter, model string, t Turn, id string) {
	sseHeaders(w)
	for _, d := range []map[string]any{{"role": "assistant", "content": ""}, {"content": "Let me look"}} {
		sse(w, "", map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": d, "finish_reason": nil}}})
	}
}

func (chatWire) writeMalformed(w http.ResponseWriter) {
	fmt.Fprintf(w, "data: %s\n\n", malformedData)
}

func (chatWire) writeError(w http.ResponseWriter, kind string, retryAfter int) {
	openaiError(w, kind, retryAfter)
}
