package agent

import (
	"strings"
	"testing"
	"time"
)

// now is the clock of these tests: 2026-07-16 12:00:00 UTC.
var testNow = time.Date(2026, 7, 16, 12, 0, 0, 0, time.UTC)

func parseAt(t *testing.T, in, format string) *Result {
	t.Helper()
	res, err := ParseOptions(strings.NewReader(in), Options{Format: format, Warn: testWarner(t), Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func ms(t time.Time) int64 { return t.UnixMilli() }

// Every way an agent says it failed: the kind the driver acts on, the
// agent's own words, and a rate limit with its reset when it is one.
func TestErrorKinds(t *testing.T) {
	for _, tc := range []struct {
		name, format, in string
		kind             string
		errHas           string
		limited          bool
		resets           int64 // Unix ms, 0 unknown
	}{
		{"claude not logged in", FormatAuto, lines(
			`{"type":"system","subtype":"init","session_id":"s","model":"claude-opus-4-7"}`,
			`{"type":"assistant","message":{"id":"m","role":"assistant","model":"<synthetic>","content":[{"type":"text","text":"Not logged in · Please run /login"}]},"parent_tool_use_id":null,"session_id":"s","error":"authentication_failed","is_api_error_message":true}`,
			`{"type":"result","subtype":"success","is_error":true,"result":"Not logged in · Please run /login","session_id":"s","total_cost_usd":0,"terminal_reason":"api_error"}`),
			"authentication", "Not logged in · Please run /login", false, 0},
		// Claude Code 2.1.330 with CLAUDE_CODE_MAX_RETRIES=2 and
		// ANTHROPIC_BASE_URL on a port nobody listens on (usage trimmed).
		{"claude 2.1.330 unreachable API is no overload", FormatClaude, lines(
			`{"type":"system","subtype":"api_retry","attempt":2,"max_retries":2,"retry_delay_ms":1151,"error_status":null,"error":"unknown","session_id":"s"}`,
			`{"type":"assistant","message":{"id":"2d","model":"<synthetic>","role":"assistant","stop_reason":"stop_sequence","type":"message","content":[{"type":"text","text":"API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)"}]},"parent_tool_use_id":null,"session_id":"s","error":"server_error","is_api_error_message":true,"api_error":"connection_failed"}`,
			`{"session_id":"s","total_cost_usd":0,"terminal_reason":"api_error","is_error":true,"num_turns":1,"subtype":"success","api_error_status":null,"api_error":"connection_failed","result":"API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)","type":"result"}`),
			"api_error", "ECONNREFUSED", false, 0},
		// Claude's overload: the real capture claude-2.1.330-matrix-overloaded
		// (testdata/agents) covers it.
		{"claude rate_limit_event allowed is information", FormatClaude, lines(
			`{"type":"rate_limit_event","rate_limit_info":{"status":"allowed","resetsAt":1784238600,"rateLimitType":"five_hour"},"session_id":"s"}`,
			`{"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning","resetsAt":1784238600,"utilization":0.91},"session_id":"s"}`,
			`{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"s","total_cost_usd":0.1}`),
			"", "", false, 0},
		{"claude rejected: resetsAt is in seconds", FormatClaude, lines(
			`{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1784238600,"rateLimitType":"five_hour","overageStatus":"rejected","isUsingOverage":false},"uuid":"u","session_id":"s"}`,
			`{"type":"assistant","error":"rate_limit","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"You've hit your session limit · resets 9:50pm (UTC)"}]},"session_id":"s"}`,
			`{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"result":"You've hit your session limit · resets 9:50pm (UTC)","session_id":"s"}`),
			"rate_limit", "You've hit your session limit", true, 1784238600000},
		{"claude rejected: a reset past year 5138 is garbage, unknown", FormatClaude, lines(
			`{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1e300},"session_id":"s"}`,
			`{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1e13},"session_id":"s"}`,
			`{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"result":"limited","session_id":"s"}`),
			"rate_limit", "", true, 0},
		{"claude rejected: a negative reset is unknown", FormatClaude, lines(
			`{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":-5},"session_id":"s"}`,
			`{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"result":"limited","session_id":"s"}`),
			"rate_limit", "", true, 0},
		{"claude result alone: reset from its words", FormatClaude, lines(
			`{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"result":"You've hit your session limit · resets 9:50pm (UTC)","session_id":"s"}`),
			"rate_limit", "session limit", true, ms(time.Date(2026, 7, 16, 21, 50, 0, 0, time.UTC))},
		{"claude usage limit with a zone", FormatClaude, lines(
			`{"type":"result","subtype":"success","is_error":true,"result":"Claude usage limit reached. Your limit will reset at 3pm (America/New_York).","session_id":"s"}`),
			"rate_limit", "usage limit", true, ms(time.Date(2026, 7, 16, 19, 0, 0, 0, time.UTC))},
		{"old claude text: epoch after a bar", FormatText, "working...\nClaude AI usage limit reached|1784238600\n",
			"rate_limit", "", true, 1784238600000},
		{"codex usage limit, relative reset", FormatCodex, lines(
			`{"type":"thread.started","thread_id":"t"}`,
			`{"type":"turn.failed","error":{"message":"You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing), or try again in 4 days 20 hours 9 minutes."}}`),
			"rate_limit", "usage limit", true, ms(testNow.Add(4*24*time.Hour + 20*time.Hour + 9*time.Minute))},
		{"codex 429", FormatCodex, lines(
			`{"type":"thread.started","thread_id":"t"}`,
			`{"type":"error","message":"exceeded retry limit, last status: 429 Too Many Requests, request id: abc"}`),
			"rate_limit", "429 Too Many Requests", true, 0},
		{"codex reconnect notices are not errors once the turn completes", FormatCodex, lines(
			`{"type":"error","message":"Reconnecting... 1/5 (stream disconnected before completion)"}`,
			`{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"ok"}}`,
			`{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}`),
			"", "", false, 0},
		{"gemini quota", FormatGemini, lines(
			`{"type":"init","timestamp":"t","session_id":"g","model":"gemini-2.5-pro"}`,
			`{"type":"result","timestamp":"t","status":"error","error":{"type":"Error","message":"[API Error: You exceeded your current quota. Please retry in 34s. RESOURCE_EXHAUSTED]"},"stats":{"total_tokens":0,"input_tokens":0,"output_tokens":0,"cached":0,"input":0,"duration_ms":1,"tool_calls":0}}`),
			"rate_limit", "RESOURCE_EXHAUSTED", true, ms(testNow.Add(34 * time.Second))},
		{"gemini json error with an HTTP code", FormatGemini, "{\n  \"error\": {\n    \"type\": \"ApiError\",\n    \"message\": \"Resource has been exhausted (e.g. check quota).\",\n    \"code\": 429\n  }\n}\n",
			"rate_limit", "exhausted", true, 0},
		{"opencode auth", FormatAuto, lines(
			`{"type":"error","timestamp":1,"sessionID":"ses_1","error":{"name":"ProviderAuthError","data":{"providerID":"anthropic","message":"Invalid API key"}}}`),
			"authentication", "Invalid API key", false, 0},
		// The real Codex 0.169.0 and Gemini CLI 0.61.0 against the agent
		// matrix's 403, 500 and 400 context-too-long (the model API's
		// message is not in Codex's words: it says its own).
		{"codex 0.169 403", FormatCodex, lines(
			`{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Model metadata for `+"`gpt-scripted`"+` not found. Defaulting to fallback metadata; this can degrade performance and cause issues."}}`,
			`{"type":"turn.started"}`,
			`{"type":"error","message":"Your API key does not have permission to use the specified resource."}`,
			`{"type":"turn.failed","error":{"message":"Your API key does not have permission to use the specified resource."}}`),
			"permission", "does not have permission", false, 0},
		{"codex 0.169 500", FormatCodex, lines(
			`{"type":"turn.started"}`,
			`{"type":"error","message":"Reconnecting... 1/1 (We’re currently experiencing high demand, which may cause temporary errors.)"}`,
			`{"type":"error","message":"We’re currently experiencing high demand, which may cause temporary errors."}`,
			`{"type":"turn.failed","error":{"message":"We’re currently experiencing high demand, which may cause temporary errors."}}`),
			"overloaded", "high demand", false, 0},
		{"codex 0.169 context too long", FormatCodex, lines(
			`{"type":"turn.started"}`,
			`{"type":"error","message":"Codex ran out of room in the model's context window. Start a new thread or clear earlier history before retrying."}`,
			`{"type":"turn.failed","error":{"message":"Codex ran out of room in the model's context window. Start a new thread or clear earlier history before retrying."}}`),
			"invalid_request", "context window", false, 0},
		{"gemini 0.61 context too long: the quoted 400 body", FormatGemini, lines(
			`{"type":"init","timestamp":"2026-11-26T05:40:20.000Z","session_id":"g","model":"gemini-2.5-flash"}`,
			`{"type":"result","timestamp":"2026-11-26T05:40:24.666Z","status":"error","error":{"type":"unknown","message":"[API Error: {\"error\":{\"code\":400,\"message\":\"The input token count (1212345) exceeds the maximum number of tokens allowed (1048576).\",\"status\":\"INVALID_ARGUMENT\"}}]"},"stats":{"total_tokens":0,"input_tokens":0,"output_tokens":0,"cached":0,"input":0,"duration_ms":0,"tool_calls":0}}`),
			"invalid_request", "exceeds the maximum number of tokens", false, 0},
		{"opencode 1.18.33 context too long", FormatOpencode, lines(
			`{"type":"error","timestamp":1795671781042,"sessionID":"ses_1","error":{"name":"ContextOverflowError","data":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","responseBody":"{\"error\":{\"code\":\"context_length_exceeded\",\"message\":\"Your input exceeds the context window of this model. Please adjust your input and try again.\",\"param\":null,\"type\":\"invalid_request_error\"}}\n"}}}`),
			"invalid_request", "ContextOverflowError", false, 0},
		// An account out of credit is no rate limit: no wait mends it.
		// Codex 0.171.0 and opencode 1.18.33 against OpenAI's 429
		// insufficient_quota (the agent matrix's billing case); Google's
		// 429 says "billing details" too, with a retry time: still a limit.
		{"codex 0.171 insufficient_quota", FormatCodex, lines(
			`{"type":"turn.started"}`,
			`{"type":"error","message":"Quota exceeded. Check your plan and billing details."}`,
			`{"type":"turn.failed","error":{"message":"Quota exceeded. Check your plan and billing details."}}`),
			"permission", "Quota exceeded. Check your plan and billing details.", false, 0},
		{"opencode insufficient_quota with its status", FormatOpencode, lines(
			`{"type":"error","timestamp":1,"sessionID":"ses_1","error":{"name":"APIError","data":{"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.","statusCode":429,"isRetryable":true}}}`),
			"permission", "exceeded your current quota", false, 0},
		{"openrouter 402", FormatOpencode, lines(
			`{"type":"error","timestamp":1,"sessionID":"ses_1","error":{"name":"APIError","data":{"message":"Insufficient credits. Add more using https://openrouter.ai/settings/credits","statusCode":402}}}`),
			"permission", "Insufficient credits", false, 0},
		{"gemini 429 naming billing details is a limit", FormatGemini, lines(
			`{"type":"init","timestamp":"t","session_id":"g","model":"gemini-2.5-flash"}`,
			`{"type":"result","timestamp":"t","status":"error","error":{"type":"unknown","message":"[API Error: You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.]"},"stats":{"total_tokens":0,"input_tokens":0,"output_tokens":0,"cached":0,"input":0,"duration_ms":1,"tool_calls":0}}`),
			"rate_limit", "exceeded your current quota", true, 0},
		{"text: insufficient quota on stderr's last line is no limit", FormatText, "working\nError: 429 You exceeded your current quota, please check your plan and billing details.\n",
			"", "", false, 0},
		// A model the API does not have (404): every iteration would fail
		// the same. Claude Code 2.1.332, Codex 0.171.0 and Gemini CLI
		// 0.61.0 against the agent matrix's no_model case (usage trimmed).
		{"claude 2.1.332 no such model", FormatClaude, lines(
			`{"type":"assistant","message":{"id":"m","model":"<synthetic>","role":"assistant","type":"message","content":[{"type":"text","text":"There's an issue with the selected model (claude-sonnet-4-5). It may not exist or you may not have access to it. Run --model to pick a different model."}]},"session_id":"s","error":"model_not_found","is_api_error_message":true,"api_error_status":404,"api_error_type":"not_found_error"}`,
			`{"type":"result","subtype":"success","is_error":true,"result":"There's an issue with the selected model (claude-sonnet-4-5). It may not exist or you may not have access to it. Run --model to pick a different model.","api_error_status":404,"api_error_type":"not_found_error","session_id":"s","total_cost_usd":0}`),
			"model_not_found", "issue with the selected model", false, 0},
		{"codex 0.171 no such model", FormatCodex, lines(
			`{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Model metadata for `+"`gpt-scripted`"+` not found. Defaulting to fallback metadata; this can degrade performance and cause issues."}}`,
			`{"type":"turn.started"}`,
			`{"type":"error","message":"The model `+"`gpt-scripted`"+` does not exist or you do not have access to it."}`,
			`{"type":"turn.failed","error":{"message":"The model `+"`gpt-scripted`"+` does not exist or you do not have access to it."}}`),
			"model_not_found", "does not exist", false, 0},
		{"gemini 0.61 no such model", FormatGemini, lines(
			`{"type":"init","timestamp":"t","session_id":"g","model":"gemini-2.5-flash"}`,
			`{"type":"result","timestamp":"t","status":"error","error":{"type":"unknown","message":"[API Error: models/gemini-2.5-flash is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.]"},"stats":{"total_tokens":0,"input_tokens":0,"output_tokens":0,"cached":0,"input":0,"duration_ms":0,"tool_calls":0}}`),
			"model_not_found", "is not found", false, 0},
		{"codex's fallback notice names no missing model", FormatCodex, lines(
			`{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Model metadata for `+"`gpt-fake`"+` not found. Defaulting to fallback metadata; this can degrade performance and cause issues."}}`,
			`{"type":"turn.failed","error":{"message":"stream disconnected before completion: error sending request"}}`),
			"api_error", "error sending request", false, 0},
		{"text: a discussion of rate limits earlier is no limit", FormatText, "I added a rate limit exceeded check to the API.\nAll tests pass.\nmore\nlines\nhere\nand\nmore\n",
			"", "", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := parseAt(t, tc.in, tc.format)
			if res.ErrorKind != tc.kind {
				t.Errorf("kind %q, want %q (errors %q)", res.ErrorKind, tc.kind, res.Errors)
			}
			if tc.errHas != "" && !strings.Contains(strings.Join(res.Errors, "; "), tc.errHas) {
				t.Errorf("errors %q, want %q in them", res.Errors, tc.errHas)
			}
			if (res.RateLimit != nil) != tc.limited {
				t.Fatalf("rate limit %+v, want limited %v", res.RateLimit, tc.limited)
			}
			if tc.limited && res.RateLimit.ResetsAt != tc.resets {
				t.Errorf("resets at %d (%s), want %d (%s)", res.RateLimit.ResetsAt, time.UnixMilli(res.RateLimit.ResetsAt).UTC(), tc.resets, time.UnixMilli(tc.resets).UTC())
			}
			if tc.limited && res.RateLimit.Evidence == "" {
				t.Error("no evidence")
			}
		})
	}
}

func TestClaudeNotLoggedInIsOneError(t *testing.T) {
	res := parseAt(t, lines(
		`{"type":"assistant","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"Not logged in · Please run /login"}]},"session_id":"s","error":"authentication_failed","is_api_error_message":true}`,
		`{"type":"result","subtype":"success","is_error":true,"result":"Not logged in · Please run /login","session_id":"s"}`), FormatClaude)
	if len(res.Errors) != 1 || res.Errors[0] != "Not logged in · Please run /login" {
		t.Errorf("errors %q", res.Errors)
	}
}
