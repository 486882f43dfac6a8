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

// An agent that fails without an error of its own format: its last three
// non-empty lines of stderr (else stdout), escaped and capped, follow the
// exit status in the step's error. (Issue 24: the error was "exit status 1".)
func TestStepAgentWords(t *testing.T) {
	long := strings.Repeat("x", 400)
	for _, tc := range []struct{ name, script, want string }{
		{"stderr's last three lines", "echo working; printf 'one\\ntwo\\n\\n  \\nError: Invalid API key for org-7\\n\\n' >&2; exit 1",
			"exit status 1: one\\ntwo\\nError: Invalid API key for org-7"},
		{"stdout when stderr is empty", "echo 'cannot reach the model'; exit 2", "exit status 2: cannot reach the model"},
		{"escaped", "printf 'bad \\033[31mred\\033[0m\\n' >&2; exit 1", "exit status 1: bad \\x1b[31mred\\x1b[0m"},
		{"capped at 300 bytes", "echo " + long + " >&2; exit 1", "exit status 1: …" + long[:300-len("…")]},
		{"silent: the status alone", "exit 1", ""},
		// an interrupted Claude Code's error was its last raw events
		{"stdout's JSON events are not words", `echo '{"event":"retry","attempt":1}'; exit 1`, ""},
		{"stdout's words after its events", `echo '{"event":"retry"}'; echo 'fatal: out of memory'; echo '{"event":"x"}'; exit 1`,
			"exit status 1: fatal: out of memory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCase(t)
			script := c.write("agent.sh", "#!/bin/sh\ncat >/dev/null\n"+tc.script+"\n")
			chmodX(t, script)
			rec, _, _ := c.run("", "--prompt", c.dir+"/prompt.md", "--", script)
			if got := str(rec.Error); tc.want == "" && rec.Error != nil || tc.want != "" && got != tc.want {
				t.Errorf("error %q\nwant  %q", got, tc.want)
			}
			if rec.ErrorKind != nil {
				t.Errorf("error kind %s: plain words are not classified here", *rec.ErrorKind)
			}
		})
	}
}

// A step loop-step was interrupted in (loop cancel, Ctrl-C) ended for the
// signal, not for what the agent printed last: a real Gemini CLI canceled
// while its API hung was recorded as "interrupted by SIGTERM: YOLO mode is
// enabled. …". The agent signals loop-step (its parent) itself.
func TestStepInterruptedHasNoAgentWords(t *testing.T) {
	c := newCase(t)
	script := c.write("agent.sh", "#!/bin/sh\ncat >/dev/null\necho 'YOLO mode is enabled.' >&2\nkill -TERM $PPID\nexec sleep 30\n")
	chmodX(t, script)
	rec, _, _ := c.run("", "--prompt", c.dir+"/prompt.md", "--", script)
	if rec == nil || str(rec.Error) != "interrupted by SIGTERM" {
		t.Fatalf("error %q, want the signal alone", str(rec.Error))
	}
}

// An agent that exits 0 without its stream's end (claude -p has, with no
// result line: anthropics/claude-code#8126) stopped before its work did:
// the step fails, counted as a failure, naming what is missing; a stream
// that ends, or has no such end (text), is no failure.
func TestStepExitZeroWithoutItsEnd(t *testing.T) {
	for _, tc := range []struct {
		name, stdout, stderr, errHas string
	}{
		{"claude", `{"type":"system","subtype":"init","session_id":"s","model":"claude-x"}` + "\n" +
			`{"type":"assistant","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"Let me look"}]},"session_id":"s"}`,
			"Error: socket hang up", "exit status 0 without the stream's result line: the agent stopped before its end: Error: socket hang up"},
		{"codex", `{"type":"thread.started","thread_id":"t"}` + "\n" + `{"type":"turn.started"}`, "", "exit status 0 without the stream's turn.completed"},
		{"gemini", `{"type":"init","timestamp":"t","session_id":"g","model":"gemini-2.5-flash"}`, "", "exit status 0 without the stream's result"},
		{"claude ended", `{"type":"system","subtype":"init","session_id":"s"}` + "\n" + `{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s"}`, "", ""},
		{"codex ended", `{"type":"thread.started","thread_id":"t"}` + "\n" + `{"type":"turn.started"}` + "\n" + `{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}`, "", ""},
		{"text", "done", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCase(t)
			c.write("out", tc.stdout+"\n")
			c.write("err", tc.stderr+"\n")
			script := c.write("agent.sh", "#!/bin/sh\ncat '"+c.dir+"/out'\ncat '"+c.dir+"/err' >&2\nexit 0\n")
			chmodX(t, script)
			rec, code, _ := c.run("", "--prompt", c.dir+"/prompt.md", "--", script)
			if tc.errHas == "" {
				if rec.Error != nil || rec.ErrorKind != nil || code != 0 {
					t.Errorf("exit %d, error %v (%v): want none", code, str(rec.Error), str(rec.ErrorKind))
				}
				return
			}
			if rec.Error == nil || !strings.Contains(*rec.Error, tc.errHas) || rec.ErrorKind == nil || *rec.ErrorKind != record.ErrorKindAPI {
				t.Errorf("error %v (%v), want %q, api_error", str(rec.Error), str(rec.ErrorKind), tc.errHas)
			}
		})
	}
}
