package modelapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// geminiWire is Google's generateContent and streamGenerateContent
// (POST /v1beta/models/MODEL:…): genai's GenerateContentResponse.
type geminiWire struct {
	stream bool
	model  string
}

// geminiModel takes MODEL from …/models/MODEL:method.
func geminiModel(path string) string {
	i := strings.LastIndex(path, "/models/")
	if i < 0 {
		return ""
	}
	m := path[i+len("/models/"):]
	if j := strings.IndexByte(m, ':'); j >= 0 {
		m = m[:j]
	}
	return m
}

func (g geminiWire) parse(body []byte) (string, bool, int, error) {
	var req struct {
		Contents []struct {
			Role string `json:"role"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return "", false, 0, err
	}
	n := 0
	for _, c := range req.Contents {
		if c.Role == "model" {
			n++
		}
	}
	return g.model, g.stream, n, nil
}

func geminiUsage(u Usage) map[string]any {
	prompt := u.Input + u.CacheRead + u.CacheCreation
	m := map[string]any{
		"promptTokenCount": prompt, "candidatesTokenCount": u.Output,
		"totalTokenCount":     prompt + u.Output + u.Reasoning,
		"promptTokensDetails": []any{map[string]any{"modality": "TEXT", "tokenCount": prompt}},
	}
	if u.CacheRead > 0 {
		m["cachedContentTokenCount"] = u.CacheRead
	}
	if u.Reasoning > 0 {
		m["thoughtsTokenCount"] = u.Reasoning
	}
	return m
}

func geminiParts(t Turn, id string) []map[string]any {
	var parts []map[string]any
	if t.Reasoning != "" {
		parts = append(parts, map[string]any{"text": t.Reasoning, "thought": true})
	}
	if t.Text != "" {
		parts = append(parts, map[string]any{"text": t.Text})
	}
	for i, c := range t.ToolCalls {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"id": fmt.Sprintf("call_%s_%d", id, i+1), "name": c.Name, "args": c.args()}})
	}
	return parts
}

func geminiResponse(model, id string, parts []map[string]any, finish string, usage map[string]any) map[string]any {
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	if finish != "" {
		cand["finishReason"] = finish
	}
	r := map[string]any{"candidates": []any{cand}, "modelVersion": model, "responseId": "resp_" + id}
	if usage != nil {
		r["usageMetadata"] = usage
	}
	return r
}

func (g geminiWire) writeTurn(w http.ResponseWriter, model string, stream bool, t Turn, id string) {
	parts := geminiParts(t, id)
	if !stream {
		writeJSON(w, 200, geminiResponse(model, id, parts, "STOP", geminiUsage(t.Usage)))
		return
	}
	sseHeaders(w)
	// one part a chunk, as Gemini streams; usage and the finish on the last
	for i, p := range parts {
		if i == len(parts)-1 {
			sse(w, "", geminiResponse(model, id, []map[string]any{p}, "STOP", geminiUsage(t.Usage)))
		} else {
			sse(w, "", geminiResponse(model, id, []map[string]any{p}, "", nil))
		}
	}
	if len(parts) == 0 {
		sse(w, "", geminiResponse(model, id, []map[string]any{{"text": ""}}, "STOP", geminiUsage(t.Usage)))
	}
}

func (g geminiWire) writeStall(w http.ResponseWriter, model string, t Turn, id string) {
	sseHeaders(w)
	sse(w, "", geminiResponse(model, id, []map[string]any{{"text": "Let me look"}}, "", nil))
}

func (geminiWire) writeMalformed(w http.ResponseWriter) {
	fmt.Fprintf(w, "data: %s\n\n", malformedData)
}

func (geminiWire) writeError(w http.ResponseWriter, kind string, retryAfter int) {
	retryHeaders(w, kind, retryAfter)
	status := map[string]string{FaultAuth: "UNAUTHENTICATED", FaultPermission: "PERMISSION_DENIED", FaultRateLimit: "RESOURCE_EXHAUSTED",
		FaultServer: "INTERNAL", FaultOverloaded: "UNAVAILABLE", FaultContext: "INVALID_ARGUMENT"}[kind]
	msg := map[string]string{
		FaultAuth:       "API key not valid. Please pass a valid API key.",
		FaultPermission: "Permission denied: Consumer 'api_key:scripted' has been suspended.",
		FaultRateLimit:  "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.",
		FaultServer:     "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
		FaultOverloaded: "The model is overloaded. Please try again later.",
		FaultContext:    "The input token count (1212345) exceeds the maximum number of tokens allowed (1048576).",
	}[kind]
	var details []any
	switch kind {
	case FaultAuth:
		details = []any{map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"}}
	case FaultRateLimit:
		details = []any{map[string]any{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []any{map[string]any{
			"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests", "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}}}}
		if retryAfter > 0 {
			msg += fmt.Sprintf(" Please retry in %ds.", retryAfter)
			details = append(details, map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": fmt.Sprintf("%ds", retryAfter)})
		}
	}
	code := statusOf(kind, false)
	body := map[string]any{"code": code, "message": msg, "status": status}
	if details != nil {
		body["details"] = details
	}
	writeJSON(w, code, map[string]any{"error": body})
}
