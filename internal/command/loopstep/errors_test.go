package loopstep

import (
	"os"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
)

// The step record carries what the driver acts on: the error kind, the
// agent's own words, the rate limit and its reset.
func TestStepErrorKinds(t *testing.T) {
	for _, tc := range []struct {
		name     string
		say      string
		args     []string
		kind     string
		errHas   string
		limited  bool
		resetsMs int64
	}{
		{"claude not logged in",
			`{"type":"assistant","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"Not logged in · Please run /login"}]},"session_id":"s-9","error":"authentication_failed","is_api_error_message":true}` + "\n" +
				`{"type":"result","subtype":"success","is_error":true,"result":"Not logged in · Please run /login","session_id":"s-9","terminal_reason":"api_error"}`,
			nil, record.ErrorKindAuthentication, "Not logged in · Please run /login", false, 0},
		{"claude rejected rate limit",
			`{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1784238600,"rateLimitType":"five_hour"},"session_id":"s"}` + "\n" +
				`{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"result":"You've hit your session limit · resets 9:50pm (UTC)","session_id":"s"}`,
			nil, record.ErrorKindRateLimit, "session limit", true, 1784238600000},
		{"not found keeps the shell's message", "", []string{"--", "no-such-agent-xyz"}, record.ErrorKindNotFound, "command not found: no-such-agent-xyz", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCase(t)
			args := tc.args
			if args == nil {
				t.Setenv("FAKE_SAY", tc.say)
				args = []string{"--", fakeAgent}
			}
			rec, _, _ := c.run("", append([]string{"--prompt", c.dir + "/prompt.md"}, args...)...)
			if rec.ErrorKind == nil || *rec.ErrorKind != tc.kind {
				t.Errorf("error kind %v, want %s", str(rec.ErrorKind), tc.kind)
			}
			if rec.Error == nil || !strings.Contains(*rec.Error, tc.errHas) {
				t.Errorf("error %v, want %q in it", str(rec.Error), tc.errHas)
			}
			if rec.RateLimited != tc.limited {
				t.Errorf("rate_limited %v", rec.RateLimited)
			}
			if tc.resetsMs != 0 && (rec.RateLimitResetsAt == nil || *rec.RateLimitResetsAt != tc.resetsMs) {
				t.Errorf("resets at %v, want %d", rec.RateLimitResetsAt, tc.resetsMs)
			}
			if tc.limited && (rec.RateLimitEvidence == nil || *rec.RateLimitEvidence == "") {
				t.Error("no evidence")
			}
		})
	}
}

// An agent in text mode prints its usage-limit notice on stderr.
func TestStepRateLimitOnStderr(t *testing.T) {
	c := newCase(t)
	script := c.write("agent.sh", "#!/bin/sh\necho 'working'\necho 'Claude AI usage limit reached|1784238600' >&2\nexit 1\n")
	chmodX(t, script)
	rec, _, _ := c.run("", "--prompt", c.dir+"/prompt.md", "--", script)
	if !rec.RateLimited || rec.RateLimitResetsAt == nil || *rec.RateLimitResetsAt != 1784238600000 || rec.ErrorKind == nil || *rec.ErrorKind != record.ErrorKindRateLimit {
		t.Errorf("rate limited %v resets %v kind %v", rec.RateLimited, rec.RateLimitResetsAt, str(rec.ErrorKind))
	}
}

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

func chmodX(t *testing.T, path string) {
	t.Helper()
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}
}
