package agent

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loopkit/loopkit/internal/record"
)

// Notice is what one line an agent printed while it ran says about a
// failed API call it is retrying on its own: Claude's api_retry, Codex's
// "Reconnecting... n/5 (…)", Gemini CLI's "Attempt N failed with status
// 429" and opencode's logged AI_APICallError. loop-step acts on it live.
type Notice struct {
	// Agent names the CLI that printed it (claude, codex, gemini, opencode).
	Agent string
	// Kind is the record error kind (authentication, permission,
	// rate_limit, overloaded, api_error); "" when the notice names no cause
	// (a lost connection).
	Kind string
	// Status is the HTTP status the notice names, 0 when none.
	Status int
	// Attempt and Max count the CLI's tries, 0 when it does not say.
	Attempt, Max int
	// Delay is the CLI's wait before its next try, 0 when unknown.
	Delay time.Duration
	// ResetsAt is when a rate limit lifts (Unix ms), 0 when unknown.
	ResetsAt int64
	// Words are the CLI's own words, shortened; Line the line itself.
	Words, Line string
	// Halt: whatever its kind, the CLI is caught in a loop of its own
	// (EmptySteps) and stopped.
	Halt bool
}

// Stops reports whether the notice is a failure no retry of the CLI can
// mend (a refused key, no permission, no model, a CLI asking an API that
// answers nothing for ever): the agent is stopped at once.
func (n *Notice) Stops() bool {
	return n.Halt || record.CannotWorkKinds[n.Kind]
}

// Counted reports whether the CLI numbers its tries: it gives up by
// itself, so its retrying is work, not a hang.
func (n *Notice) Counted() bool { return n.Attempt > 0 }

// String is the live log line: "agent retrying: overloaded, attempt 3/10,
// next in 9 s".
func (n *Notice) String() string {
	what := n.Kind
	switch {
	case what == "" || what == record.ErrorKindAPI:
		what = n.Words
	case n.Status != 0:
		what = fmt.Sprintf("%s (%d)", what, n.Status)
	}
	s := "agent retrying: " + what
	switch {
	case n.Attempt > 0 && n.Max > 0:
		s += fmt.Sprintf(", attempt %d/%d", n.Attempt, n.Max)
	case n.Attempt > 0:
		s += fmt.Sprintf(", attempt %d", n.Attempt)
	}
	if n.Delay > 0 {
		s += ", next in " + roundDelay(n.Delay)
	}
	return s
}

func roundDelay(d time.Duration) string {
	if d < time.Second {
		return strconv.FormatInt(d.Milliseconds(), 10) + " ms"
	}
	return strconv.FormatInt(int64((d+time.Second/2)/time.Second), 10) + " s"
}

// Why is the step's error for a notice loop-step acted on, in the CLI's
// words.
func (n *Notice) Why() string {
	s := n.Agent + ": " + n.Words
	if n.Attempt > 0 {
		s += fmt.Sprintf(" (retry %d", n.Attempt)
		if n.Max > 0 {
			s += fmt.Sprintf("/%d", n.Max)
		}
		s += ")"
	}
	return s
}

var (
	codexRetry   = lazyRegexp(`^Reconnecting\.\.\.\s*(\d+)/(\d+)\s*(?:\((.*)\))?`)
	statusInText = lazyRegexp(`(?i)(?:status:?|status code:?|HTTP)\s*(\d{3})\b|\b(\d{3}) (?:Unauthorized|Forbidden|Too Many Requests|Internal Server Error|Bad Gateway|Service Unavailable|Gateway Timeout)`)
	retryAfter   = lazyRegexp(`(?i)retry[-_ ]after(?:[-_ ]ms)?["']?\s*[:=]\s*["']?(\d+(?:\.\d+)?)`)
	geminiRetry  = lazyRegexp(`Attempt (\d+) failed with status (\d{3})\. Retrying with backoff`)
	geminiRetry2 = lazyRegexp(`Attempt (\d+) failed(?::| with)? (.*?)\.? Retrying (?:with backoff|after (\d+)ms)`)
	// geminiAttempt: the first line of a notice Gemini CLI split in two.
	geminiAttempt = lazyRegexp(`^Attempt (\d+) failed: (.+)`)
)

// noticeHints are the bytes a notice line holds; the others are not decoded.
var noticeHints = [][]byte{[]byte("api_retry"), []byte("Reconnecting"), []byte("Attempt "), []byte("AI_APICallError")}

// LiveNotice reads a notice from one line of an agent's stdout or stderr,
// nil when the line is none. now dates a reset the line gives as a delay.
func LiveNotice(line []byte, now time.Time) *Notice {
	hint := false
	for _, h := range noticeHints {
		if bytes.Contains(line, h) {
			hint = true
			break
		}
	}
	if !hint {
		return nil
	}
	b := bytes.TrimSpace(line)
	if len(b) > 0 && b[0] == '{' {
		return jsonNotice(b, now)
	}
	return textNotice(string(b), now)
}

func jsonNotice(b []byte, now time.Time) *Notice {
	var ev struct {
		Type         string `json:"type"`
		Subtype      string `json:"subtype"`
		Attempt      int    `json:"attempt"`
		MaxRetries   int    `json:"max_retries"`
		RetryDelayMs *int64 `json:"retry_delay_ms"`
		ErrorStatus  *int   `json:"error_status"`
		Error        any    `json:"error"`
		Message      string `json:"message"`
	}
	if decodeLoose(b, &ev) != nil {
		return nil
	}
	switch {
	case ev.Type == "system" && ev.Subtype == "api_retry":
		n := &Notice{Agent: "claude", Attempt: ev.Attempt, Max: ev.MaxRetries, Line: string(b)}
		code, _ := ev.Error.(string)
		if ev.ErrorStatus != nil {
			n.Status = *ev.ErrorStatus
			n.Kind = kindOfCode(strconv.Itoa(n.Status))
		}
		if k := kindOfCode(code); k != "" && k != record.ErrorKindAPI && (n.Kind == "" || n.Kind == record.ErrorKindAPI) {
			n.Kind = k
		}
		if ev.RetryDelayMs != nil && *ev.RetryDelayMs > 0 {
			n.Delay = time.Duration(*ev.RetryDelayMs) * time.Millisecond
		}
		n.Words = claudeWords(b, n.Status, code)
		if n.Kind == record.ErrorKindRateLimit && n.Delay > 0 {
			n.ResetsAt = now.Add(n.Delay).UnixMilli()
		}
		return n
	case ev.Type == "error":
		return codexNotice(ev.Message, string(b), now)
	}
	return nil
}

// claudeRetryFields is the part of an api_retry line that says what
// failed, as Claude Code wrote it: it has no prose, its fields are its words.
var claudeRetryFields = lazyRegexp(`"error_status":\s*\d+\s*,\s*"error":\s*"[^"]*"|"error_status":\s*\d+|"error":\s*"[^"]*"`)

// claudeWords are an api_retry line's own words, `"error_status":429,
// "error":"rate_limit"` as the line has them, else a summary of them.
func claudeWords(line []byte, status int, code string) string {
	if m := claudeRetryFields().Find(line); m != nil {
		return string(m)
	}
	w := "api_retry"
	if status != 0 {
		w += " " + strconv.Itoa(status)
	}
	if code != "" {
		w += " " + code
	}
	return w
}

// codexNotice reads "Reconnecting... 1/5 (exceeded retry limit, last
// status: 429 Too Many Requests)"; waiting for network has no count.
func codexNotice(msg, line string, now time.Time) *Notice {
	m := codexRetry().FindStringSubmatch(strings.TrimSpace(msg))
	if m == nil {
		return nil
	}
	n := &Notice{Agent: "codex", Line: line, Words: strings.TrimSpace(msg)}
	n.Attempt, _ = strconv.Atoi(m[1])
	n.Max, _ = strconv.Atoi(m[2])
	n.kindFromText(m[3])
	if n.Kind == record.ErrorKindRateLimit {
		n.ResetsAt = limitReset(msg, now)
	}
	return n
}

// limitReset is when a limit named in text lifts: a reset in its words
// ("try again in 34s", an ISO time), else its retry-after (seconds, or ms
// for retry-after-ms) counted from now; 0 when it says neither.
func limitReset(msg string, now time.Time) int64 {
	if at := resetTime(msg, now); at != 0 {
		return at
	}
	m := retryAfter().FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	f, _ := strconv.ParseFloat(m[1], 64)
	unit := time.Second
	if strings.Contains(strings.ToLower(m[0]), "ms") {
		unit = time.Millisecond
	}
	if f <= 0 || f > 366*24*3600*1000 {
		return 0
	}
	return now.Add(time.Duration(f * float64(unit))).UnixMilli()
}

// kindFromText sets the status and kind a message names: its HTTP status
// first, else its words; a message naming neither has no kind.
func (n *Notice) kindFromText(msg string) {
	if m := statusInText().FindStringSubmatch(msg); m != nil {
		n.Status, _ = strconv.Atoi(m[1] + m[2])
		n.Kind = kindOfCode(strconv.Itoa(n.Status))
	}
	if n.Kind == "" || n.Kind == record.ErrorKindAPI {
		if k := classify(msg); k != "" {
			n.Kind = k
		}
	}
	n.Kind = unpaid(n.Kind, msg)
}

// textNotice reads Gemini CLI's and opencode's stderr lines.
func textNotice(s string, now time.Time) *Notice {
	if m := geminiRetry().FindStringSubmatch(s); m != nil {
		n := &Notice{Agent: "gemini", Line: s, Words: record.HeadChars(s, evidenceChars)}
		n.Attempt, _ = strconv.Atoi(m[1])
		n.Status, _ = strconv.Atoi(m[2])
		n.Kind = kindOfCode(m[2])
		if n.Kind == record.ErrorKindRateLimit {
			n.ResetsAt = limitReset(s, now)
		}
		return n
	}
	if m := geminiRetry2().FindStringSubmatch(s); m != nil {
		n := &Notice{Agent: "gemini", Line: s, Words: record.HeadChars(s, evidenceChars)}
		n.Attempt, _ = strconv.Atoi(m[1])
		n.kindFromText(m[2])
		if ms, err := strconv.ParseInt(m[3], 10, 64); err == nil && ms > 0 {
			n.Delay = time.Duration(ms) * time.Millisecond
		}
		if n.Kind == record.ErrorKindRateLimit {
			if n.ResetsAt = limitReset(s, now); n.ResetsAt == 0 && n.Delay > 0 {
				n.ResetsAt = now.Add(n.Delay).UnixMilli()
			}
		}
		return n
	}
	if m := geminiAttempt().FindStringSubmatch(s); m != nil {
		// Gemini CLI 0.61 breaks the line after the API's message ("Please
		// retry in 2s."), its "Retrying after 5173ms" on the next line: the
		// first line is the notice, read when its words name a cause.
		n := &Notice{Agent: "gemini", Line: s, Words: record.HeadChars(s, evidenceChars)}
		n.Attempt, _ = strconv.Atoi(m[1])
		n.kindFromText(m[2])
		if n.Kind == "" {
			return nil
		}
		if n.Kind == record.ErrorKindRateLimit {
			n.ResetsAt = limitReset(s, now)
		}
		return n
	}
	if i := strings.Index(s, "AI_APICallError"); i >= 0 {
		// opencode --print-logs: "… stream error … AI_APICallError: Rate limit reached"
		words := strings.TrimSpace(strings.TrimPrefix(s[i+len("AI_APICallError"):], ":"))
		if i > 0 && s[i-1] == '"' { // opencode 1.18's logfmt: error.error="AI_APICallError: …"
			words = strings.ReplaceAll(strings.TrimSuffix(words, `"`), `\"`, `"`)
		}
		n := &Notice{Agent: "opencode", Line: s, Words: record.HeadChars("AI_APICallError: "+words, evidenceChars)}
		n.kindFromText(words)
		if n.Kind == "" {
			return nil // an API error opencode reports itself, not a retry
		}
		if n.Kind == record.ErrorKindRateLimit {
			n.ResetsAt = limitReset(words, now)
		}
		return n
	}
	return nil
}

// Stopped records that loop-step stopped the agent for notice n: an
// authentication or permission failure, or a rate limit, with the CLI's
// words first among the errors (what it printed after is the stop's echo).
func (r *Result) Stopped(n *Notice) {
	why := n.Why()
	r.Errors = append([]string{why}, r.Errors...)
	r.ErrorKind = n.Kind
	if n.Kind == record.ErrorKindRateLimit {
		ev := n.Line
		if ev == "" {
			ev = why
		}
		r.RateLimit = nil
		r.limit(n.ResetsAt, ev)
	}
}

// noticeProgress reports whether a line that only says the agent is
// retrying counts as work: it does when the CLI counts its tries (it gives
// up by itself), never when it retries forever (Codex waiting for network).
func noticeProgress(line []byte) bool {
	n := LiveNotice(line, time.Time{})
	return n != nil && n.Counted()
}

// BlindSpot is a warning for an agent command whose rate limits loop-step
// cannot see while it runs, "" when there is none: opencode prints them
// only in its log, which --print-logs puts on stderr.
func BlindSpot(argv []string) string {
	if len(argv) == 0 || filepath.Base(argv[0]) != "opencode" || slices.Contains(argv, "--print-logs") {
		return ""
	}
	return "opencode without --print-logs: its rate limits stay in its log, unseen until it gives up; add --print-logs"
}
