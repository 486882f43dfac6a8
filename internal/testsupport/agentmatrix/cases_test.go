package agentmatrix

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopkit/loopkit/internal/testsupport/modelapi"
)

// matrixCase is one outcome every CLI is run through.
type matrixCase struct {
	name     string
	fault    string // a modelapi fault kind, "" for none
	kind     string // the error_kind loopkit must record, a|b for either ("" for none)
	validate string
	capture  bool // kept under testdata/agents with LOOPKIT_AGENTS_CAPTURE
	// noRetryAfter: the fault carries no retry-after (nor RetryInfo);
	// times: only the first so many requests fail (0: all of them)
	noRetryAfter bool
	times        int
	// unreachable points the CLI at a port nothing listens on
	unreachable bool
	// notKind: an error_kind the step must not get (an API nobody
	// answered is not overloaded)
	notKind string
	// agentPolicy runs with --rate-limit-policy agent: the CLI's own
	// retries, a rate limit only when it gives up
	agentPolicy bool
	// maxWait is the run's --max-wait (1s when zero); idleTimeout its
	// --idle-timeout (the default when zero)
	maxWait, idleTimeout time.Duration
	// longAnswer: bytes of the final answer's text
	longAnswer int
	// denied runs the CLI without the flag that lets its tools run (its
	// permission mode refuses them), for up to 3 iterations
	denied bool
	// forever: the model asks for a tool call in every turn, for ever;
	// the step's --timeout ends it
	forever bool
	// eventDelay holds back each streamed event: slow tokens
	eventDelay time.Duration
	// cancel runs `loop cancel` once the faulted request has come
	cancel bool
}

// maxToolCallsForever is tools_forever's max_tool_calls: the CLIs make
// more calls than that before the step's --timeout (Gemini CLI's loop
// detection stops it at four).
const maxToolCallsForever = 20

const validateNotes = "grep -qx hello notes.txt && grep -qx world notes.txt"

var cases = []matrixCase{
	{name: "success", validate: validateNotes, capture: true},
	{name: "max_turns", validate: validateNotes},
	{name: "max_budget", validate: validateNotes, capture: true},
	{name: "auth", fault: modelapi.FaultAuth, kind: "authentication", validate: validateNotes, capture: true},
	{name: "permission", fault: modelapi.FaultPermission, kind: "permission|authentication", validate: validateNotes},
	{name: "rate_limit", fault: modelapi.FaultRateLimit, kind: "rate_limit", validate: validateNotes, capture: true},
	{name: "server", fault: modelapi.FaultServer, kind: "overloaded", validate: validateNotes}, // loopkit's kind for any 5xx
	{name: "overloaded", fault: modelapi.FaultOverloaded, kind: "overloaded", validate: validateNotes, capture: true},
	{name: "context", fault: modelapi.FaultContext, kind: "invalid_request", validate: validateNotes},
	{name: "stall", fault: modelapi.FaultStall, validate: validateNotes},
	{name: "hang", fault: modelapi.FaultHang, validate: validateNotes},
	{name: "rate_limit_no_retry_after", fault: modelapi.FaultRateLimit, kind: "rate_limit", validate: validateNotes, noRetryAfter: true, maxWait: 30 * time.Second},
	{name: "rate_limit_agent_policy", fault: modelapi.FaultRateLimit, kind: "rate_limit", validate: validateNotes, agentPolicy: true},
	{name: "overloaded_once", fault: modelapi.FaultOverloaded, validate: validateNotes, times: 1},
	{name: "truncated", fault: modelapi.FaultTruncated, validate: validateNotes, notKind: "overloaded"},
	{name: "malformed", fault: modelapi.FaultMalformed, validate: validateNotes},
	{name: "unreachable", validate: validateNotes, unreachable: true, idleTimeout: 45 * time.Second, notKind: "overloaded"},
	{name: "long_answer", validate: validateNotes, longAnswer: 400 << 10},
	{name: "denied", validate: validateNotes, denied: true, capture: true},
	{name: "tools_forever", validate: validateNotes, forever: true},
	{name: "rate_limit_once", fault: modelapi.FaultRateLimit, validate: validateNotes, times: 1, maxWait: 2 * time.Minute},
	{name: "huge_answer", validate: validateNotes, longAnswer: 3 << 20}, // past any pipe: Gemini CLI exits before a pipe takes it
	{name: "slow_tokens", validate: validateNotes, eventDelay: 300 * time.Millisecond},
	{name: "cancel_hang", fault: modelapi.FaultHang, validate: validateNotes, cancel: true},
	{name: "billing", fault: modelapi.FaultBilling, kind: "permission", validate: validateNotes}, // out of credit: no wait mends it
	{name: "no_model", fault: modelapi.FaultModel, kind: "model_not_found", validate: validateNotes},
	{name: "bad_gateway", fault: modelapi.FaultBadGateway, kind: "overloaded", validate: validateNotes}, // a proxy's HTML page: its status still says overloaded
	{name: "reset", fault: modelapi.FaultReset, kind: "api_error", validate: validateNotes},             // closed unanswered: no overload, no fatal stop
	{name: "redirect", fault: modelapi.FaultRedirect, kind: "api_error", validate: validateNotes},       // a captive portal's page, answered 200
}

// scenario: three turns that write notes.txt, append to it through the
// shell, and say so; usage with cache reads and writes and reasoning.
func (tc matrixCase) scenario(h *harness) *modelapi.Scenario {
	sc := &modelapi.Scenario{Model: h.cli.model, TextWithoutTools: true, Turns: []modelapi.Turn{
		{Text: "I will write notes.txt.", ToolCalls: []modelapi.ToolCall{h.cli.write(h)},
			Usage: modelapi.Usage{Input: 120, Output: 40, CacheRead: 1000, CacheCreation: 200, Reasoning: 8}},
		{ToolCalls: []modelapi.ToolCall{h.cli.shell(h)}, Usage: modelapi.Usage{Input: 150, Output: 30, CacheRead: 1200}},
		{Text: "Done: notes.txt has hello and world.", Usage: modelapi.Usage{Input: 160, Output: 12, CacheRead: 1300}},
	}}
	if tc.fault != "" {
		// short waits, so the CLIs' own retries end in seconds
		sc.Fault = &modelapi.Fault{Kind: tc.fault, RetryAfter: 2, NoRetryAfter: tc.noRetryAfter, Times: tc.times}
	}
	if tc.forever {
		sc.Turns, sc.Repeat = sc.Turns[1:2], true
	}
	sc.EventDelayMs = int(tc.eventDelay / time.Millisecond)
	if tc.longAnswer > 0 {
		last := &sc.Turns[len(sc.Turns)-1]
		// numbered lines: Gemini CLI stops an answer that repeats itself
		// ("Loop detected, stopping execution")
		var b strings.Builder
		for i := 1; b.Len() < tc.longAnswer; i++ {
			fmt.Fprintf(&b, "\nLine %d of the long answer: notes.txt holds hello and world.", i)
		}
		last.Text += b.String() + "\nAll of notes.txt is written."
	}
	return sc
}

// pending marks what loopkit does not do yet, per "cli/case/check" (a *
// matches any): the check is still made and logged as XFAIL, and an XPASS
// says the mark can go. The reasons name the work that makes them hold.
var pending = map[string]string{}

func (h *harness) expect(check string, ok bool, format string, args ...any) {
	key := h.cli.name + "/" + strings.TrimPrefix(h.t.Name()[strings.LastIndex(h.t.Name(), "/")+1:], "") + "/" + check
	reason := ""
	caseName := key[len(h.cli.name)+1 : len(key)-len(check)-1]
	for _, k := range []string{key, "*/" + caseName + "/" + check, h.cli.name + "/*/" + check, h.cli.name + "/" + caseName + "/*", "*/*/" + check, h.cli.name + "/*/*"} {
		if r, ok := pending[k]; ok {
			reason = r
			break
		}
	}
	msg := fmt.Sprintf(format, args...)
	switch {
	case ok && reason != "":
		h.t.Logf("XPASS %s: holds now; drop its pending mark (%s)", check, reason)
	case !ok && reason != "":
		h.t.Logf("XFAIL %s (%s): %s", check, reason, msg)
	case !ok:
		h.t.Errorf("%s: %s", check, msg)
	}
}

// num reads a number from encoding/json (float64) or gojq (int too).
func num(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

func same(a, b any) bool {
	x, xok := num(a)
	y, yok := num(b)
	if xok && yok {
		d := x - y
		return d < 1e-9 && d > -1e-9
	}
	return a == nil && b == nil
}

// check asserts what the issue asks of every case: loopkit's figures equal
// the CLI's own, the outcome is classified, in the CLI's words.
func (tc matrixCase) check(h *harness) {
	t := h.t
	if h.run == "" {
		t.Fatalf("loop run printed no run id (exit %d): %s", h.exit, h.stderr)
	}
	stdout, stderr := h.agentStream()
	own := h.ownTotals(stdout)
	step := h.step()
	for _, f := range [][2]string{{"input", "llm_input_tokens"}, {"output", "llm_output_tokens"}, {"cache_read", "llm_cache_read_tokens"},
		{"cache_creation", "llm_cache_creation_tokens"}, {"cost", "cost_usd"}} {
		if !same(own[f[0]], step[f[1]]) {
			t.Errorf("%s: loopkit recorded %v, the CLI reported %v", f[1], step[f[1]], own[f[0]])
		}
	}
	calls, _ := step["tool_calls"].([]any)
	dropped, _ := num(step["tool_calls_dropped"])
	ownCalls, _ := num(own["tool_calls"])
	if float64(len(calls))+dropped != ownCalls {
		t.Errorf("tool calls: loopkit recorded %d (+%v dropped), the CLI made %v", len(calls), dropped, ownCalls)
	}
	n := int(ownCalls)
	errText, _ := step["error"].(string)
	kind, _ := step["error_kind"].(string)
	switch tc.name {
	case "tools_forever":
		if h.cli.name == "gemini" { // its loop detection ends the turn: logged as a notice
			h.expect("loop-detected", h.exit != 0 && strings.Contains(h.stderr, "agent notice (not an error): gemini: Loop detected"),
				"exit %d; the driver's log does not say why Gemini stopped: %s", h.exit, tail(h.stderr, 400))
		} else {
			h.expect("timed-out", h.exit != 0 && step["timed_out"] == true, "exit %d, timed_out %v: want the step's --timeout to end it", h.exit, step["timed_out"])
		}
		h.expect("tool-calls", len(calls) == min(n, maxToolCallsForever) && int(dropped) == max(n-maxToolCallsForever, 0),
			"%d tool calls kept and %v dropped of the CLI's %d (max_tool_calls=%d)", len(calls), dropped, n, maxToolCallsForever)
	case "rate_limit_once":
		// stopped at the first 429, waited, the same iteration again: it
		// completes, the limited call kept as an attempt, not counted
		at := h.records("attempts.jsonl")
		limited := 0
		for _, e := range h.records("events.jsonl") {
			if e["type"] == "RATE_LIMITED" {
				limited++
			}
		}
		h.expect("completed", h.exit == 0 && len(h.records("iterations.jsonl")) == 1 && len(calls) == 2,
			"exit %d, %d iterations, %d tool calls: want 0, 1 and 2", h.exit, len(h.records("iterations.jsonl")), len(calls))
		work := false // opencode's first request is its session title, retried unseen
		for _, r := range h.srv.Requests() {
			work = work || r.Fault != "" && !r.Side
		}
		if work {
			h.expect("attempt", len(at) == 1 && at[0]["kind"] == "rate_limited" && limited == 1,
				"%d attempts (%v), %d RATE_LIMITED events: want the one limited call", len(at), at, limited)
		} else {
			h.t.Logf("the 429 answered a side request (a session title), which the CLI retried by itself")
		}
	case "cancel_hang":
		h.checkCanceled(step)
	case "success", "overloaded_once", "long_answer", "slow_tokens", "huge_answer":
		h.expect("completed", h.exit == 0, "exit %d, want 0 (completed)", h.exit)
		notes, _ := os.ReadFile(filepath.Join(h.ws, "notes.txt"))
		h.expect("files-edited", string(notes) == "hello\nworld\n", "notes.txt = %q, want the CLI's tools to have written hello and world", notes)
		h.expect("tool-calls", len(calls) == 2, "%d tool calls recorded, want the 2 the model made", len(calls))
		h.expect("notice-not-error", errText == "" && kind == "", "a step that completed has error %q (%s)", errText, kind)
		want := map[string]string{"claude": "reported", "opencode": "reported", "codex": "unknown", "gemini": "unknown"}[h.cli.name]
		h.expect("cost-source", step["cost_source"] == want, "cost_source %v, want %q", step["cost_source"], want)
		if tc.longAnswer > 0 {
			final, _ := step["final_message"].(string)
			// the record keeps its last record.FinalMessageChars
			h.expect("long-answer", strings.HasSuffix(strings.TrimSpace(final), "All of notes.txt is written."),
				"final message %q, want the end of the %d-byte answer", tail(final, 200), tc.longAnswer)
		}
	case "max_turns":
		if h.exit == 0 {
			t.Errorf("exit 0: a run cut at one model turn cannot have passed")
		}
		if h.cli.name == "claude" { // its error_max_turns result
			h.expect("kind", kind == "max_turns", "error_kind %q, want max_turns (error %q)", kind, errText)
		}
	case "max_budget": // its error_max_budget_usd result
		if h.exit == 0 {
			t.Errorf("exit 0: a run stopped by its budget before any work cannot have passed")
		}
		h.expect("kind", kind == "max_budget", "error_kind %q, want max_budget (error %q)", kind, errText)
	case "denied":
		// every tool refused: the run fails at the second such iteration
		// (rule agent-denied), naming the call, instead of running all 3
		denied := false
		for _, c := range calls {
			if m, _ := c.(map[string]any); m["denied"] == true {
				denied = true
			}
		}
		h.expect("denied-recorded", denied, "no tool call recorded as denied: %v", calls)
		its := len(h.records("iterations.jsonl"))
		h.expect("denied-stops", h.exit == 3 && its == 2 && strings.Contains(h.stderr, "agent cannot work: its CLI denied "),
			"exit %d after %d iterations, want 3 after 2 naming the refused call", h.exit, its)
	default:
		if h.exit == 0 {
			t.Fatalf("exit 0 under fault %s", tc.fault)
		}
		if tc.notKind != "" {
			h.expect("not-kind", kind != tc.notKind, "error_kind %q (error %q)", kind, errText)
		}
		if tc.kind != "" {
			h.expect("kind", kind != "" && strings.Contains("|"+tc.kind+"|", "|"+kind+"|"), "error_kind %q, want %q (error %q)", kind, tc.kind, errText)
		} else if tc.fault == modelapi.FaultHang || tc.fault == modelapi.FaultStall {
			timedOut := step["timed_out"] == true || step["idle_timeout"] == true
			h.expect("hang-classified", timedOut || kind != "", "a %s step ended neither timed out nor with an error kind: %q", tc.fault, errText)
		}
		if tc.idleTimeout > 0 {
			// Codex waits for the network for ever, without a count: no
			// progress, so --idle-timeout ends it
			h.t.Logf("error %q, idle_timeout %v", errText, step["idle_timeout"])
		}
		// a timeout is loopkit's words: the CLI said nothing; so are the
		// empty model steps loop-step counted (opencode under a redirect)
		if step["timed_out"] != true && step["idle_timeout"] != true && !strings.Contains(errText, "model steps in a row answered nothing") {
			h.expect("own-words", errText != "" && inWords(errText, stdout, stderr), "error %q is not in the CLI's output", errText)
		}
		if !tc.unreachable {
			h.timingTargets(tc, step)
		}
	}
}

// inWords: the error loopkit shows is made of the CLI's own words: 30
// characters of it, taken after a label loopkit or the CLI put in front
// ("gemini: ", "codex error: "), appear in what the CLI printed.
func inWords(errText string, outs ...[]byte) bool {
	s := errText
	for {
		w := s
		if len(w) > 30 {
			w = w[:30]
		}
		for _, o := range outs {
			if len(w) >= 8 && (bytes.Contains(o, []byte(w)) || bytes.Contains(o, []byte(jsonQuoted(w)))) {
				return true
			}
		}
		i := strings.Index(s, ": ")
		if i < 0 {
			return false
		}
		s = s[i+2:]
	}
}

func jsonQuoted(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}

// timingTargets: an auth failure ends the step within 10 s of the first
// refused request, a rate limit is recorded within 5 s and the run waits
// or pauses (exit 75) without counting the iteration, an overload retry
// shows in the driver's log.
func (h *harness) timingTargets(tc matrixCase, step map[string]any) {
	// Timed from the first refused request for the work itself: a side
	// request (opencode's session title, offered no tools) that fails is
	// dropped by the CLI without a word, so nothing can be seen of it.
	var first, side time.Time
	for _, r := range h.srv.Requests() {
		if r.Fault != "" && r.Side && side.IsZero() {
			side = r.At
		}
		if r.Fault != "" && !r.Side {
			first = r.At
			break
		}
	}
	if first.IsZero() {
		first = side
	}
	if first.IsZero() {
		h.expect("reached-api", false, "the CLI never reached the faulted API")
		return
	}
	ended, _ := num(step["ended_at"])
	endedAt := time.UnixMilli(int64(ended))
	switch tc.fault {
	case modelapi.FaultAuth, modelapi.FaultPermission, modelapi.FaultBilling, modelapi.FaultModel:
		h.expect("auth-10s", ended > 0 && endedAt.Sub(first) <= 10*time.Second, "the step ended %s after the first refused request", endedAt.Sub(first).Round(100*time.Millisecond))
		h.expect("auth-exit-3", h.exit == 3, "exit %d, want 3 (failed)", h.exit)
	case modelapi.FaultRateLimit:
		var ev map[string]any
		for _, e := range h.records("events.jsonl") {
			if e["type"] == "RATE_LIMITED" {
				ev = e
				break
			}
		}
		if ev == nil {
			h.expect("rate-limited", false, "no RATE_LIMITED event (step rate_limited=%v)", step["rate_limited"])
			return
		}
		ts, _ := num(ev["ts"])
		if tc.agentPolicy {
			// the CLI retried on its own and gave up: not stopped by loopkit
			h.t.Logf("RATE_LIMITED %s after the first 429, the CLI's retries done", time.UnixMilli(int64(ts)).Sub(first).Round(100*time.Millisecond))
			h.expect("agent-policy", step["stopped"] != true, "the agent was stopped under --rate-limit-policy agent")
		} else {
			h.expect("rate-limited", time.UnixMilli(int64(ts)).Sub(first) <= 5*time.Second, "RATE_LIMITED %s after the first 429", time.UnixMilli(int64(ts)).Sub(first).Round(100*time.Millisecond))
		}
		if tc.noRetryAfter {
			// No reset from the API: what a CLI says instead (Claude's
			// retry_delay_ms, Gemini's "Retrying after 5173ms") is its own
			// backoff. Under a 30 s --max-wait a loop that trusted it again
			// called the API every two seconds until the waits added up;
			// from the second limited call it waits the driver's backoff.
			var limited []map[string]any
			for _, e := range h.records("events.jsonl") {
				if e["type"] == "RATE_LIMITED" {
					limited = append(limited, e)
				}
			}
			var waits []any
			short := 0
			for i, e := range limited {
				waits = append(waits, e["wait_ms"])
				if w, _ := num(e["wait_ms"]); i > 0 && w < 60000 {
					short++
				}
			}
			h.expect("rate-limit-backoff", len(limited) <= 2 && short == 0, "%d limited calls, waits (ms) %v: want the driver's backoff from the second", len(limited), waits)
		} else if tc.agentPolicy {
			// the CLI's retries took their waits: its final error needs
			// none, and the driver waits its own backoff when it gives none
			h.t.Logf("reset %v, wait_ms %v", step["rate_limit_resets_at"], ev["wait_ms"])
		} else if h.cli.noReset == "" {
			h.expect("rate-limit-reset", step["rate_limit_resets_at"] != nil, "no reset recorded: %v", step["rate_limit_resets_at"])
		} else {
			// nothing to take the reset from: the driver's own backoff
			wait, _ := num(ev["wait_ms"])
			h.t.Logf("no reset in the CLI's output (%s)", h.cli.noReset)
			h.expect("rate-limit-backoff", step["rate_limit_resets_at"] == nil && wait > 0, "reset %v, wait_ms %v: want no reset and the driver's backoff", step["rate_limit_resets_at"], ev["wait_ms"])
		}
		h.expect("rate-limit-paused", h.exit == 75 && len(h.records("iterations.jsonl")) == 0, "exit %d with %d iterations, want 75 (paused under --max-wait) and none counted", h.exit, len(h.records("iterations.jsonl")))
	case modelapi.FaultOverloaded:
		h.expect("retry-live", strings.Contains(h.stderr, "agent retrying"), "the driver's log does not show the CLI's retries: %s", tail(h.stderr, 400))
	}
}

// capture keeps the case's real stream under testdata/agents (or dir),
// named CLI-VERSION-matrix-CASE, with its .jqfile and .expect.json.
func (h *harness) capture(dir, version, name string) {
	if dir == "1" {
		dir = agentsDir
	}
	stdout, _ := h.agentStream()
	base := filepath.Join(dir, fmt.Sprintf("%s-%s-matrix-%s", h.cli.name, version, strings.ReplaceAll(name, "_", "-")))
	writeFile(base+"."+h.cli.ext, string(stdout))
	jq := h.cli.jq
	writeFile(base+".jqfile", jq+"\n")
	exp, _ := json.MarshalIndent(jqTotals(h.t, jq, stdout), "", "  ")
	writeFile(base+".expect.json", string(exp)+"\n")
	h.t.Logf("captured %s.%s", base, h.cli.ext)
}
