package agent

import (
	"strconv"
	"strings"
	"time"

	"github.com/loopkit/loopkit/internal/record"
)

// RateLimit says the agent hit a usage or rate limit.
type RateLimit struct {
	// ResetsAt is when the limit lifts (Unix ms), 0 when nobody said.
	ResetsAt int64
	// Evidence is the line that said so, shortened.
	Evidence string
}

// evidenceChars bounds the evidence line kept in a record.
const evidenceChars = 400

// fail notes an error the agent reported. A specific kind replaces the
// catch-all api_error; otherwise the first kind stays.
func (r *Result) fail(kind, msg string) {
	if msg != "" {
		r.Errors = append(r.Errors, msg)
	}
	if kind != "" && (r.ErrorKind == "" || r.ErrorKind == record.ErrorKindAPI) {
		r.ErrorKind = kind
	}
}

// maxResetsAtMs bounds a reset time an agent may give (year 5138): past
// it, or below 0, the time is garbage and taken as unknown (a far-future
// one once overflowed the wait into a negative one).
const maxResetsAtMs = int64(1e14)

// limit notes a usage or rate limit; a known reset time is never replaced
// by an unknown one.
func (r *Result) limit(resetsAt int64, evidence string) {
	if resetsAt < 0 || resetsAt > maxResetsAtMs {
		resetsAt = 0
	}
	ev := record.HeadChars(strings.TrimSpace(evidence), evidenceChars)
	if r.RateLimit == nil {
		r.RateLimit = &RateLimit{ResetsAt: resetsAt, Evidence: ev}
	} else if resetsAt != 0 || r.RateLimit.ResetsAt == 0 {
		r.RateLimit.ResetsAt, r.RateLimit.Evidence = resetsAt, ev
	}
	if r.ErrorKind == "" || r.ErrorKind == record.ErrorKindAPI {
		r.ErrorKind = record.ErrorKindRateLimit
	}
}

// kindOfCode maps the error names agents and APIs use (Claude Code's
// assistant "error" field, Anthropic and Google API error types) and HTTP
// statuses to a record error kind; "" when the code means nothing known.
func kindOfCode(code string) string {
	switch strings.ToLower(strings.TrimSpace(code)) {
	case "authentication_failed", "authentication_error", "unauthenticated", "401", "oauth_org_not_allowed":
		return record.ErrorKindAuthentication
	case "billing_error", "permission_error", "permission_denied", "403", "402", "payment_required", "insufficient_quota":
		return record.ErrorKindPermission
	case "rate_limit", "rate_limit_error", "resource_exhausted", "429":
		return record.ErrorKindRateLimit
	case "overloaded", "overloaded_error", "server_error", "api_error", "unavailable", "500", "502", "503", "504", "529":
		return record.ErrorKindOverloaded
	case "model_not_found", "not_found_error", "not_found", "404":
		return record.ErrorKindNoModel
	case "invalid_request", "invalid_request_error", "invalid_argument", "request_too_large", "400", "413":
		return record.ErrorKindInvalidRequest
	case "":
		return ""
	}
	return record.ErrorKindAPI
}

var (
	authText = lazyRegexp(`(?i)not logged in|please run /login|invalid api key|incorrect api key|invalid x-api-key|authentication[_ ](failed|error)|unauthori[sz]ed|\b401\b|please (log ?in|sign in)|login required|api key not valid|OAuth token (has )?expired`)
	permText = lazyRegexp(`(?i)permission[_ ]denied|\bforbidden\b|\b403\b|credit balance is too low|billing|does not have permission`)
	// Codex 0.169 says "We're currently experiencing high demand" for a 500.
	overText = lazyRegexp(`(?i)overloaded|\b529\b|\b50[0234]\b|service unavailable|internal server error|bad gateway|\bUNAVAILABLE\b|experiencing high demand`)
	// reqText: a request the API refused as it stands, mostly a context
	// too long (Codex's "ran out of room in the model's context window",
	// Gemini's quoted 400 body, opencode's ContextOverflowError), or
	// Codex's quoted 400 ({"type":"error","status":400,"error":{"type":
	// "invalid_request_error",…}}, "unexpected status 400 Bad Request").
	reqText = lazyRegexp(`(?i)context window|context[_ ]length|maximum context|ContextOverflow|prompt is too long|exceeds the maximum number of tokens|\bINVALID_ARGUMENT\b|"code":\s*400\b|"status":\s*400\b|invalid_request_error|\b400 Bad Request\b`)
	// modelText: the model asked for does not exist (OpenAI's "The model
	// `x` does not exist or you do not have access to it.", Google's
	// "models/x is not found for API version v1beta", Claude Code's
	// "There's an issue with the selected model (x)"); not Codex's notice
	// "Model metadata for `x` not found. Defaulting to fallback metadata".
	modelText = lazyRegexp(`(?i)\bmodel_not_found\b|\bthe model\s+\S{1,100}\s+does not exist|\bmodels/\S{1,100} is not found|issue with the selected model|\b(unknown|invalid) model\b|\bmodel not found\b`)
	limText   = lazyRegexp(`(?i)usage limit|(session|weekly|daily|usage|rate|5-hour|five[_ -]hour|opus|sonnet) limit (reached|exceeded|hit)|hit your [\w -]{0,20}limit|reached your [\w -]{0,20}limit|rate[_ ]limit(ed| exceeded|_error)|too many requests|\b429\b|RESOURCE_EXHAUSTED|quota exceeded|exceeded your current quota|out of (credits|quota)`)
)

var (
	// billText: an account out of credit, which no wait mends: OpenAI's
	// 429 insufficient_quota ("You exceeded your current quota, please
	// check your plan and billing details"; Codex: "Quota exceeded. Check
	// your plan and billing details."), Anthropic's "credit balance is too
	// low", OpenRouter's 402 "Insufficient credits".
	billText = lazyRegexp(`(?i)insufficient[_ ](quota|credits|funds|balance)|credit balance is too low|check your plan and billing details|enable billing|payment required|\b402\b`)
	// waitText: the same words from a limit that lifts (Google's 429 says
	// "check your plan and billing details" too, with its rate-limits page
	// and "Please retry in 34s").
	waitText = lazyRegexp(`(?i)retry in|try again|retry[-_ ]after|resets? (at|in)\b|rate[-_ ]limit|RESOURCE_EXHAUSTED|per (minute|hour|day)\b`)
)

// unpaid corrects a kind its status or words gave to an error that says
// the account is out of credit: it is permission, the account may not
// do this, not a rate limit to wait out nor a request to send again.
func unpaid(kind, msg string) string {
	switch kind {
	case "", record.ErrorKindAPI, record.ErrorKindRateLimit, record.ErrorKindInvalidRequest:
		if billText().MatchString(msg) && !waitText().MatchString(msg) {
			return record.ErrorKindPermission
		}
	}
	return kind
}

// classify names the kind of an error message by its words; "" when it
// says nothing recognisable.
func classify(msg string) string {
	if k := unpaid("", msg); k != "" {
		return k
	}
	switch {
	case limText().MatchString(msg):
		return record.ErrorKindRateLimit
	case authText().MatchString(msg):
		return record.ErrorKindAuthentication
	case permText().MatchString(msg):
		return record.ErrorKindPermission
	case overText().MatchString(msg):
		return record.ErrorKindOverloaded
	case modelText().MatchString(msg):
		return record.ErrorKindNoModel
	case reqText().MatchString(msg):
		return record.ErrorKindInvalidRequest
	}
	return ""
}

// errorText notes an error message: its kind from its words (api_error
// when they say nothing), and a rate limit with its reset when it is one.
func (r *Result) errorText(msg, kind string, now time.Time) {
	if kind == "" {
		kind = classify(msg)
	}
	if kind = unpaid(kind, msg); kind == "" {
		kind = record.ErrorKindAPI
	}
	r.fail(kind, msg)
	if kind == record.ErrorKindRateLimit {
		r.limit(resetTime(msg, now), msg)
	}
}

var (
	// Claude Code before 1.0.30: "Claude AI usage limit reached|1749924000".
	epochReset = lazyRegexp(`limit reached\|(\d{10,13})\b`)
	// "try again in 4 days 20 hours 9 minutes", "retry in 34.5s", "resets in 2h 5m".
	relReset  = lazyRegexp(`(?i)(?:try again|retry|resets?|reset|available again) in ((?:\d+(?:\.\d+)?\s*(?:days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b[\s,]*(?:and\s+)?)+)`)
	relPart   = lazyRegexp(`(?i)(\d+(?:\.\d+)?)\s*(days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b`)
	clockTime = lazyRegexp(`(?i)(?:resets?|reset|try again|available again)(?: at)? (\d{1,2})(?::(\d{2}))?\s*(am|pm)?\s*(?:\(([A-Za-z_/+-]+)\)|([A-Z]{2,4}\b|UTC))?`)
	isoTime   = lazyRegexp(`\b(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2}))`)
	// Codex on another day than today: "try again at Jan 2nd, 2027 3:45 PM".
	datedTime = lazyRegexp(`(?i)(?:try again|resets?|available again) (?:at|on) ([A-Z][a-z]{2}) (\d{1,2})(?:st|nd|rd|th)?,? (\d{4}),? (\d{1,2}:\d{2}) ?([AP]M)`)
)

// resetTime reads when a limit lifts from the message that announced it
// (Unix ms), 0 when it does not say. Relative times count from now; a time
// of day is the next such time in the zone named, else in now's zone: the
// local one, which the CLI, run by loop-step, printed it in (Codex's "Try
// again at 3:45 PM.").
func resetTime(msg string, now time.Time) int64 {
	if m := epochReset().FindStringSubmatch(msg); m != nil {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		if n < 1e12 {
			n *= 1000
		}
		return n
	}
	if m := isoTime().FindStringSubmatch(msg); m != nil {
		if t, err := time.Parse(time.RFC3339Nano, m[1]); err == nil {
			return t.UnixMilli()
		}
	}
	if m := datedTime().FindStringSubmatch(msg); m != nil {
		text := m[1] + " " + m[2] + " " + m[3] + " " + m[4] + " " + strings.ToUpper(m[5])
		if t, err := time.ParseInLocation("Jan 2 2006 3:04 PM", text, now.Location()); err == nil {
			return t.UnixMilli()
		}
	}
	if m := relReset().FindStringSubmatch(msg); m != nil {
		var d time.Duration
		for _, p := range relPart().FindAllStringSubmatch(m[1], -1) {
			f, _ := strconv.ParseFloat(p[1], 64)
			unit := time.Second
			switch u := strings.ToLower(p[2]); {
			case strings.HasPrefix(u, "d"):
				unit = 24 * time.Hour
			case strings.HasPrefix(u, "h"):
				unit = time.Hour
			case strings.HasPrefix(u, "m"):
				unit = time.Minute
			}
			d += time.Duration(f * float64(unit))
		}
		if d > 0 {
			return now.Add(d).UnixMilli()
		}
	}
	if m := clockTime().FindStringSubmatch(msg); m != nil && (m[3] != "" || m[2] != "") {
		h, _ := strconv.Atoi(m[1])
		mins, _ := strconv.Atoi(m[2])
		switch strings.ToLower(m[3]) {
		case "pm":
			if h < 12 {
				h += 12
			}
		case "am":
			if h == 12 {
				h = 0
			}
		}
		if h > 23 || mins > 59 {
			return 0
		}
		loc := now.Location()
		if zone := m[4] + m[5]; zone == "UTC" {
			loc = time.UTC
		} else if zone != "" {
			l, err := time.LoadLocation(zone)
			if err != nil {
				return 0 // a zone we cannot place: better unknown than wrong
			}
			loc = l
		}
		n := now.In(loc)
		t := time.Date(n.Year(), n.Month(), n.Day(), h, mins, 0, 0, loc)
		if !t.After(n) {
			t = t.AddDate(0, 0, 1)
		}
		return t.UnixMilli()
	}
	return 0
}

// textLimit looks for a usage-limit notice in the last lines of plain text
// (an agent's stdout or stderr): only the end is read, where a CLI prints
// why it stopped, so a message that merely discusses rate limits earlier
// does not count.
func (r *Result) textLimit(text string, lastLines int, now time.Time) {
	text = strings.TrimRight(text, " \t\r\n")
	for i := 0; i < lastLines && text != ""; i++ {
		ln := text
		if j := strings.LastIndexByte(text, '\n'); j >= 0 {
			ln, text = text[j+1:], strings.TrimRight(text[:j], " \t\r\n")
		} else {
			text = ""
		}
		if limitNotice().MatchString(ln) && unpaid(record.ErrorKindRateLimit, ln) == record.ErrorKindRateLimit {
			r.limit(resetTime(ln, now), ln)
			return
		}
	}
}

// limitNotice is the plain-text family of usage-limit notices: narrower
// than limText, since it reads prose the agent wrote.
var limitNotice = lazyRegexp(`(?i)usage limit reached|limit reached\|\d{10}|hit your [\w -]{0,20}limit|(session|weekly|usage|rate) limit (reached|exceeded)|rate limit exceeded|429 Too Many Requests|RESOURCE_EXHAUSTED|exceeded your current quota|quota exceeded`)

// ScanStderr adds what the agent's stderr says about a failure: a
// usage-limit notice near its end. Agents in text mode print it there.
func (r *Result) ScanStderr(stderr []byte, now time.Time) {
	if r.RateLimit == nil {
		r.textLimit(record.Text(stderr), 20, now)
	}
}
