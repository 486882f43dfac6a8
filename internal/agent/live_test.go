package agent

import (
	"testing"
	"time"
)

// The lines the real CLIs print while they retry a failed API call.
func TestLiveNotice(t *testing.T) {
	now := time.UnixMilli(1_700_000_000_000)
	for _, tc := range []struct {
		line, agent, kind string
		status, attempt   int
		resetsIn          time.Duration
		text              string
	}{
		{`{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":536,"error_status":401,"error":"authentication_failed","session_id":"s"}`,
			"claude", "authentication", 401, 1, 0, "agent retrying: authentication (401), attempt 1/10, next in 536 ms"},
		{`{"type":"system","subtype":"api_retry","attempt":2,"max_retries":10,"retry_delay_ms":30000,"error_status":429,"error":"rate_limit"}`,
			"claude", "rate_limit", 429, 2, 30 * time.Second, "agent retrying: rate_limit (429), attempt 2/10, next in 30 s"},
		{`{"type":"system","subtype":"api_retry","attempt":3,"max_retries":10,"retry_delay_ms":9100,"error_status":529,"error":"overloaded"}`,
			"claude", "overloaded", 529, 3, 0, "agent retrying: overloaded (529), attempt 3/10, next in 9 s"},
		{`{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":500,"error_status":null,"error":"authentication_failed"}`,
			"claude", "authentication", 0, 1, 0, ""},
		{`{"type":"error","message":"Reconnecting... 1/5 (exceeded retry limit, last status: 429 Too Many Requests)"}`,
			"codex", "rate_limit", 429, 1, 0, "agent retrying: rate_limit (429), attempt 1/5"},
		{`{"type":"error","message":"Reconnecting... 2/5 (unexpected status 401 Unauthorized: Incorrect API key provided)"}`,
			"codex", "authentication", 401, 2, 0, ""},
		{`{"type":"error","message":"Reconnecting... 3/5 (unexpected status 503 Service Unavailable)"}`,
			"codex", "overloaded", 503, 3, 0, ""},
		{`Attempt 2 failed with status 429. Retrying with backoff... ApiError: {"error":{"code":429,"status":"RESOURCE_EXHAUSTED"}}`,
			"gemini", "rate_limit", 429, 2, 0, "agent retrying: rate_limit (429), attempt 2"},
		{`Attempt 1 failed with status 503. Retrying with backoff...`, "gemini", "overloaded", 503, 1, 0, ""},
		// Gemini CLI 0.61.0 against the matrix's 429 (its next line says
		// "Suggested retry after 2s.. Retrying after 5173ms...")
		{`Attempt 1 failed: You exceeded your current quota, please check your plan and billing details. Please retry in 2s.`,
			"gemini", "rate_limit", 0, 1, 2 * time.Second, ""},
		// opencode 1.18.33 --print-logs: its title request's refused key,
		// logged 9 s before the work request's on a loaded machine
		{`timestamp=2026-11-26T05:38:31.481Z level=ERROR run=18a1d1b2 message="stream error" providerID=scripted modelID=scripted-model small=true agent=title mode=primary error.error="AI_APICallError: Incorrect API key provided: sk-scrip***. You can find your API key at https://platform.openai.com/account/api-keys."`,
			"opencode", "authentication", 0, 0, 0, ""},
		{`ERROR 2026-11-26T02:00:00 +70ms service=session.processor error=Rate limit reached stream error AI_APICallError: Rate limit reached`,
			"opencode", "rate_limit", 0, 0, 0, ""},
		// opencode 1.18.33 against OpenAI's 429 insufficient_quota: the
		// account is out of credit, stopped as a refused key is
		{`timestamp=2026-11-27T23:49:30.396Z level=ERROR run=fb2aa513 message="stream error" providerID=scripted modelID=scripted-model small=false agent=build mode=primary error.error="AI_APICallError: You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors."`,
			"opencode", "permission", 0, 0, 0, ""},
		{`{"type":"error","message":"Reconnecting... 1/5 (unexpected status 429 Too Many Requests: insufficient_quota)"}`,
			"codex", "permission", 429, 1, 0, ""},
	} {
		n := LiveNotice([]byte(tc.line), now)
		if n == nil {
			t.Errorf("%s: no notice", tc.line)
			continue
		}
		if n.Agent != tc.agent || n.Kind != tc.kind || n.Status != tc.status || n.Attempt != tc.attempt {
			t.Errorf("%s: got %s %s %d attempt %d", tc.line, n.Agent, n.Kind, n.Status, n.Attempt)
		}
		if tc.resetsIn != 0 && n.ResetsAt != now.Add(tc.resetsIn).UnixMilli() {
			t.Errorf("%s: resets at %d, want now+%s", tc.line, n.ResetsAt, tc.resetsIn)
		}
		if tc.text != "" && n.String() != tc.text {
			t.Errorf("%s: %q, want %q", tc.line, n.String(), tc.text)
		}
	}
	// opencode's logfmt quotes the error: its words end inside the quotes
	n := LiveNotice([]byte(`level=ERROR message="stream error" error.error="AI_APICallError: Incorrect API key provided: sk-scrip***. See \"keys\"."`), now)
	if n == nil || n.Why() != `opencode: AI_APICallError: Incorrect API key provided: sk-scrip***. See "keys".` {
		t.Errorf("opencode's quoted error: %+v", n)
	}
	for _, line := range []string{
		`{"type":"error","message":"Reconnecting... waiting for network (stream disconnected)"}`,
		`{"type":"system","subtype":"init","session_id":"s"}`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"Attempt 2 failed, I will retry"}]}}`,
		`compiling...`,
		`AI_APICallError: tool call failed`,
		`Attempt 1 failed: the tests did not build`,
	} {
		if n := LiveNotice([]byte(line), now); n != nil {
			t.Errorf("%s: a notice %+v", line, n)
		}
	}
}

// A stop for a notice puts the CLI's words first and, for a limit, the
// reset the CLI gave.
func TestResultStopped(t *testing.T) {
	now := time.UnixMilli(1_700_000_000_000)
	n := LiveNotice([]byte(`{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":30000,"error_status":429,"error":"rate_limit"}`), now)
	r := &Result{Errors: []string{"later"}}
	r.Stopped(n)
	if r.ErrorKind != "rate_limit" || r.RateLimit == nil || r.RateLimit.ResetsAt != now.Add(30*time.Second).UnixMilli() {
		t.Fatalf("%+v %+v", r, r.RateLimit)
	}
	if r.Errors[0] != `claude: "error_status":429,"error":"rate_limit" (retry 1/10)` {
		t.Errorf("errors %q", r.Errors)
	}
}

// A reset the CLI's words give: "try again in", or a retry-after.
func TestLiveNoticeReset(t *testing.T) {
	now := time.UnixMilli(1_700_000_000_000)
	for line, in := range map[string]time.Duration{
		`{"type":"error","message":"Reconnecting... 1/5 (exceeded retry limit, last status: 429 Too Many Requests, Please try again in 20s)"}`: 20 * time.Second,
		`ERROR service=llm stream error AI_APICallError: Rate limit reached responseHeaders={"retry-after":"45"}`:                              45 * time.Second,
		`Attempt 3 failed with status 429. Retrying with backoff... retry-after-ms: 1500`:                                                      1500 * time.Millisecond,
	} {
		n := LiveNotice([]byte(line), now)
		if n == nil || n.ResetsAt != now.Add(in).UnixMilli() {
			t.Errorf("%s: %+v, want a reset in %s", line, n, in)
		}
	}
}

// opencode shows its rate limits only in its log: without --print-logs the
// driver warns before the first step.
func TestBlindSpot(t *testing.T) {
	if BlindSpot([]string{"/usr/bin/opencode", "run", "--format", "json"}) == "" {
		t.Error("opencode without --print-logs: no warning")
	}
	for _, argv := range [][]string{{"opencode", "run", "--print-logs", "--format", "json"}, {"claude", "-p"}, nil} {
		if w := BlindSpot(argv); w != "" {
			t.Errorf("%q: warned %q", argv, w)
		}
	}
}
