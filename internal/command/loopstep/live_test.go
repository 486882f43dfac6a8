package loopstep

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/record"
)

const (
	claudeInit    = `{"type":"system","subtype":"init","session_id":"s-1","model":"claude-sonnet-4-5"}`
	claudeSuccess = `{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"s-1","total_cost_usd":0.01,"usage":{"input_tokens":3,"output_tokens":5}}`
	codexStart    = `{"type":"thread.started","thread_id":"t-1"}`
	geminiInit    = `{"type":"init","session_id":"g-1","model":"gemini-2.5-pro"}`
	opencodeStart = `{"type":"step_start","sessionID":"o-1","part":{"type":"step-start"}}`
)

type stepRecord struct {
	rec    *record.Step
	code   int
	stderr string
}

func itoa(n int) string { return strconv.Itoa(n) }

// retrying runs loop-step on testdata/fake-agent/retrying.sh printing
// first, then retry (each {n} the attempt) times times, then last.
func (c *stepCase) retrying(first, retry, stream string, times int, last string, args ...string) (*stepRecord, time.Duration) {
	c.t.Helper()
	c.t.Setenv("FAKE_FIRST", first)
	c.t.Setenv("FAKE_RETRY", retry)
	c.t.Setenv("FAKE_STREAM", stream)
	c.t.Setenv("FAKE_TIMES", itoa(times))
	c.t.Setenv("FAKE_LAST", last)
	start := time.Now()
	rec, code, stderr := c.run("", append(append([]string{"--prompt", c.dir + "/prompt.md"}, args...), "--", fake("retrying.sh"))...)
	if rec == nil {
		c.t.Fatalf("no record (exit %d): %s", code, stderr)
	}
	return &stepRecord{rec, code, stderr}, time.Since(start)
}

// A refused key the CLI retries for minutes stops the agent at its first
// notice: the step fails in the CLI's words, as an authentication error.
func TestLiveAuthStops(t *testing.T) {
	for _, tc := range []struct{ name, first, retry, stream, words string }{
		{"claude", claudeInit, `{"type":"system","subtype":"api_retry","attempt":{n},"max_retries":10,"retry_delay_ms":600,"error_status":401,"error":"authentication_failed","session_id":"s-1"}`, "stdout", `claude: "error_status":401,"error":"authentication_failed" (retry 1/10)`},
		{"claude-403", claudeInit, `{"type":"system","subtype":"api_retry","attempt":{n},"max_retries":10,"retry_delay_ms":600,"error_status":403,"error":"unknown"}`, "stdout", `claude: "error_status":403,"error":"unknown" (retry 1/10)`},
		{"codex", codexStart, `{"type":"error","message":"Reconnecting... {n}/5 (unexpected status 401 Unauthorized: Incorrect API key provided)"}`, "stdout", "codex: Reconnecting... 1/5 (unexpected status 401 Unauthorized"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCase(t)
			r, took := c.retrying(tc.first, tc.retry, tc.stream, 1000, claudeSuccess)
			rec := r.rec
			if r.code != 1 || !rec.Stopped || rec.ErrorKind == nil || (*rec.ErrorKind != "authentication" && *rec.ErrorKind != "permission") || rec.RateLimited {
				t.Fatalf("exit %d stopped %v kind %v rate_limited %v\n%s", r.code, rec.Stopped, str(rec.ErrorKind), rec.RateLimited, r.stderr)
			}
			if rec.Error == nil || !strings.HasPrefix(*rec.Error, tc.words) {
				t.Errorf("error %q, want it to start %q", str(rec.Error), tc.words)
			}
			if took > 10*time.Second {
				t.Errorf("stopped after %s, want within 10 s", took)
			}
		})
	}
}

// A rate limit the CLI retries is a rate limit at its first notice, with
// the reset the CLI gave; under --rate-limit-policy agent the CLI retries.
func TestLiveRateLimit(t *testing.T) {
	for _, tc := range []struct {
		name, first, retry, stream string
		resetIn                    time.Duration
	}{
		{"claude", claudeInit, `{"type":"system","subtype":"api_retry","attempt":{n},"max_retries":10,"retry_delay_ms":30000,"error_status":429,"error":"rate_limit"}`, "stdout", 30 * time.Second},
		{"codex", codexStart, `{"type":"error","message":"Reconnecting... {n}/5 (exceeded retry limit, last status: 429 Too Many Requests)"}`, "stdout", 0},
		{"gemini", geminiInit, `Attempt {n} failed with status 429. Retrying with backoff... ApiError: {"error":{"code":429,"message":"Resource exhausted. Please try again later.","status":"RESOURCE_EXHAUSTED"}}`, "stderr", 0},
		{"opencode", opencodeStart, `ERROR 2026-11-26T02:40:00 +1ms service=session.prompt sessionID=o-1 stream error AI_APICallError: Rate limit reached`, "stderr", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCase(t)
			before := time.Now()
			r, took := c.retrying(tc.first, tc.retry, tc.stream, 1000, "")
			rec := r.rec
			if !rec.RateLimited || !rec.Stopped || rec.ErrorKind == nil || *rec.ErrorKind != "rate_limit" || rec.RateLimitEvidence == nil {
				t.Fatalf("rate_limited %v stopped %v kind %v\n%s", rec.RateLimited, rec.Stopped, str(rec.ErrorKind), r.stderr)
			}
			if took > 5*time.Second {
				t.Errorf("stopped after %s, want within 5 s", took)
			}
			if tc.resetIn > 0 {
				if at := rec.RateLimitResetsAt; at == nil || time.UnixMilli(*at).Before(before.Add(tc.resetIn)) || time.UnixMilli(*at).After(time.Now().Add(tc.resetIn)) {
					t.Errorf("resets at %v, want in %s", rec.RateLimitResetsAt, tc.resetIn)
				}
			}
			if !strings.Contains(r.stderr, "agent stopped") {
				t.Errorf("no log line:\n%s", r.stderr)
			}
		})
	}
	t.Run("policy-agent", func(t *testing.T) {
		c := newCase(t)
		r, _ := c.retrying(claudeInit, `{"type":"system","subtype":"api_retry","attempt":{n},"max_retries":10,"retry_delay_ms":100,"error_status":429,"error":"rate_limit"}`,
			"stdout", 3, claudeSuccess, "--rate-limit-policy", "agent")
		if r.code != 0 || r.rec.RateLimited || r.rec.Stopped || r.rec.Error != nil || r.rec.FinalMessage != "done" {
			t.Fatalf("exit %d rate_limited %v error %v\n%s", r.code, r.rec.RateLimited, str(r.rec.Error), r.stderr)
		}
		if strings.Count(r.stderr, "agent retrying: rate_limit (429), attempt") != 3 {
			t.Errorf("retries not logged:\n%s", r.stderr)
		}
	})
}

// Overload retries are shown as they come, are no idle time, and are no
// failure when the CLI then succeeds.
// A line every 0.3 s for 4.5 s against a 3 s idle timeout: the run outlasts
// the timeout, and a loaded machine (a load of 60 on 2 cores) still writes
// each line well within it (a 0.1 s pace against 700 ms did not).
func TestLiveOverloadRetries(t *testing.T) {
	c := newCase(t)
	t.Setenv("FAKE_EVERY", "0.3")
	r, _ := c.retrying(claudeInit, `{"type":"system","subtype":"api_retry","attempt":{n},"max_retries":20,"retry_delay_ms":9100,"error_status":529,"error":"overloaded"}`,
		"stdout", 15, claudeSuccess, "--idle-timeout", "3s")
	rec := r.rec
	if r.code != 0 || rec.IdleTimeout || rec.Error != nil || rec.ErrorKind != nil || rec.Stopped || rec.FinalMessage != "done" {
		t.Fatalf("exit %d idle %v error %v kind %v\n%s", r.code, rec.IdleTimeout, str(rec.Error), str(rec.ErrorKind), r.stderr)
	}
	if !strings.Contains(r.stderr, "agent retrying: overloaded (529), attempt 3/20, next in 9 s") {
		t.Errorf("retry not logged live:\n%s", r.stderr)
	}
}

// opencode asking an API that answers 200 with nothing it can read (a
// captive portal's page) starts another empty model step at once, for
// ever: the third in a row stops it, in words naming what it saw.
func TestLiveOpencodeEmptySteps(t *testing.T) {
	c := newCase(t)
	step := `{"type":"step_start","sessionID":"o-1","part":{"type":"step-start"}}` + "\n" +
		`{"type":"step_finish","sessionID":"o-1","part":{"reason":"unknown","type":"step-finish","tokens":{"input":0,"output":0,"reasoning":0,"cache":{"write":0,"read":0}},"cost":0}}`
	r, _ := c.retrying("", step, "stdout", 1000, "")
	rec := r.rec
	if r.code != 1 || !rec.Stopped || rec.ErrorKind == nil || *rec.ErrorKind != record.ErrorKindAPI {
		t.Fatalf("exit %d stopped %v kind %v\n%s", r.code, rec.Stopped, str(rec.ErrorKind), r.stderr)
	}
	if want := "opencode: 3 model steps in a row answered nothing"; rec.Error == nil || !strings.HasPrefix(*rec.Error, want) {
		t.Errorf("error %q, want it to start %q", str(rec.Error), want)
	}
}
