package nextaction

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/loopkit/loopkit/internal/agent"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
)

// Rule is one reason to act. Decide returns ok=false when the rule has
// nothing to say, and the next rule is asked.
type Rule struct {
	Name   string
	Decide func(in *Input) (Action, bool)
}

// Rules are the driver's rules in the order they are asked: this list is
// the one place that decides what the driver does next. A feature adds its
// rule where it belongs in it. The stop rules come first; the watchdog and
// the rate limit are asked only when the run could go on, and record what
// they decide (through Input.Record) so that asking again decides the same.
var Rules = []Rule{
	{"status-not-given", statusNotGiven},
	{"not-running", notRunning},
	{"git-stopped", gitStopped},
	{"agent-cannot-run", agentCannotRun},
	{"validation_cannot_run", validationCannotRun},
	{"reviewer-cannot-run", reviewerCannotRun},
	{"final-verify-cannot-run", finalVerifyCannotRun},
	{"final-verify", finalVerify},
	{"merge", mergeRun},
	{"completed", completed},
	{"agent-denied", agentDenied},
	{"agent-failing", agentFailing},
	{"over-budget", overBudget},
	{"over_duration", overDuration},
	{"out-of-iterations", outOfIterations},
	{RuleWatchdog, watchdogCheck},  // stuck, or a rewritten prompt for the next iteration
	{RuleRateLimited, rateLimited}, // wait, or pause past max_wait
}

// Decide asks the rules in order; when none acts, the next iteration runs
// (with the watchdog's rewritten prompt, when it rewrote one: rule
// watchdog-rewrite). The action names the rule that decided.
func Decide(in *Input, rules []Rule) Action {
	for _, r := range rules {
		if a, ok := r.Decide(in); ok {
			if a.Rule == "" {
				a.Rule = r.Name
			}
			return a
		}
	}
	a := Action{Kind: Iterate, Iteration: in.LastNumber() + 1, Prompt: in.Prompt(), Rule: RuleNext}
	if rw := in.rewrite; rw != nil {
		a.Prompt, a.Rule, a.Reason = rw.prompt, RuleWatchdogRewrite, rw.reason
	}
	extra := map[string]string{}
	if w := costUnknown(in); w != "" {
		extra["warning"] = w
	}
	if in.Set().Reviewer != "" {
		extra["review"] = "1" // the reviewer runs between the step and the validation
	}
	if t := stepTimeout(in); t != "" {
		extra["step_timeout"] = t // the driver keeps a step cut by it as an attempt
	}
	if d := deadline(in); d != "" {
		extra["deadline_ms"] = d // loop-step and loop-validate --deadline
	}
	if len(extra) > 0 {
		a.Extra = extra
	}
	return a
}

// costUnknown warns, once (after the first iteration), that --max-cost
// cannot act because the agent reports no cost; --max-tokens can. A run
// warned of it at start (StartWarning) is not warned again. The agent's
// step is judged, not the run's total: a reviewer that reports its cost
// would leave the agent's spend uncounted without a word.
func costUnknown(in *Input) string {
	if in.Set().MaxCost <= 0 || in.LastNumber() != 1 || in.Last().CostUSD != nil || in.Set().CostWarned {
		return ""
	}
	if in.Set().MaxTokens > 0 {
		return "the agent reports no cost: --max-cost cannot act, --max-tokens will"
	}
	return "the agent reports no cost: --max-cost cannot act; give --max-tokens to cap this run"
}

// StartWarning is what a run's settings deserve a warning for before the
// first step: --max-cost with an agent whose program is known to report no
// cost (Codex) can never act. "" when there is nothing to say. The caller
// sets KeyCostWarned when it gave the warning, and asks only when no price
// table (config prices) could estimate the cost.
func StartWarning(set *runconfig.Settings) string {
	if set.MaxCost <= 0 || len(set.Agent) == 0 {
		return ""
	}
	prog := set.Agent[0]
	if reports, known := agent.ReportsCost(prog); !known || reports {
		return ""
	}
	name := filepath.Base(prog)
	if set.MaxTokens > 0 {
		return name + " reports no cost: --max-cost cannot be enforced, --max-tokens will"
	}
	return name + " reports no cost: --max-cost cannot be enforced; use --max-tokens"
}

// StopExit is the driver's exit status for a run that ended with status.
func StopExit(status string) int {
	switch status {
	case record.RunCompleted:
		return exitcode.Completed
	case record.RunStuck:
		return exitcode.Stuck
	case record.RunPaused:
		return exitcode.Busy
	case record.RunCanceled:
		return 130 // as after Ctrl-C; a driver that caught the signal uses its own
	}
	return exitcode.Failed
}

// ReasonChars caps a stop's reason: one line for the terminal and
// run.json, and an argument of the driver's to loop-record, where one
// over 128 KiB cannot be passed at all (the run was never marked).
const ReasonChars = 1000

// WhyChars caps what a reason quotes of a step's or validation's output.
const WhyChars = 300

func stop(status, reason string) Action {
	return Action{Kind: Stop, Status: status, Reason: headChars(reason, ReasonChars), Exit: StopExit(status)}
}

// headChars is the first n characters of s, "…" marking a cut.
func headChars(s string, n int) string {
	if h := record.HeadChars(s, n); h != s {
		return h + "…"
	}
	return s
}

// statusNotGiven: the run's own driver finds it completed, stuck or
// failed, which only the driver decides, and it did not: something else
// wrote it (the agent can run loop-record, or write run.json). A run the
// validation did not pass must not end completed, exit 0.
func statusNotGiven(in *Input) (Action, bool) {
	switch st := in.Run.Status; {
	case !in.Driver, st == record.RunRunning, st == record.RunPaused, st == record.RunCanceled:
		return Action{}, false
	}
	return stop(record.RunFailed, fmt.Sprintf("run was marked %s while it ran, not by its driver "+
		"(the agent can run loop-record or write run.json): not taken, the run fails", in.Run.Status)), true
}

// notRunning: someone else ended or paused the run (cancel of a dead
// driver, pause): the driver stops without writing.
func notRunning(in *Input) (Action, bool) {
	if in.Run.Status == record.RunRunning {
		return Action{}, false
	}
	if in.Run.Status == record.RunPaused {
		// its last error is its last iteration's, not why it stopped
		return stop(in.Run.Status, "by loop pause, after its step; loop resume goes on"), true
	}
	reason := "run is " + in.Run.Status
	if in.Run.LastError != nil && *in.Run.LastError != "" {
		reason += ": " + *in.Run.LastError
	}
	return stop(in.Run.Status, reason), true
}

// gitStopped: git blocked reading the work tree on what the agent left
// there, and was stopped: the run fails rather than go on without trees.
func gitStopped(in *Input) (Action, bool) {
	if !in.GitStopped {
		return Action{}, false
	}
	return stop(record.RunFailed, "git did not finish reading the work tree and was stopped: "+
		"something there blocks it (a FIFO where git reads a .gitignore, .gitattributes or an included config); remove it"), true
}

// agentCannotRun: the agent could not start (126/127) or said it may not
// work (not logged in, no permission: record.CannotWorkKinds): no further
// iteration can help. The step is the attempt just kept, else the last
// iteration's since the latest resume.
func agentCannotRun(in *Input) (Action, bool) {
	ag := in.Attempt
	if ag == nil {
		since := in.SinceResume()
		if len(since) == 0 {
			return Action{}, false
		}
		ag = since[len(since)-1].Agent
	}
	if ag == nil {
		return Action{}, false
	}
	kind := deref(ag.ErrorKind)
	code := -1
	if ag.ExitCode != nil {
		code = *ag.ExitCode
	}
	if !record.CannotWork(kind, code) {
		return Action{}, false
	}
	why := deref(ag.Error)
	if kind == record.ErrorKindNotFound || code == 126 || code == 127 {
		if why == "" {
			why = fmt.Sprintf("exit status %d", code)
		}
		return stop(record.RunFailed, "agent could not start: "+why), true
	}
	if why == "" {
		why = kind + " error"
	}
	return stop(record.RunFailed, "agent cannot work: "+why), true
}

// agentDenied: in the last two iterations since the latest resume the
// agent's CLI refused a tool call under its permission mode (Claude
// Code's -p without a mode that allows edits) and nothing changed. Nobody
// answers a permission prompt in a loop, so further steps would be refused
// the same way and paid for; one such iteration may be the model's choice
// (a denied command it could do without), two in a row are the setting. A
// resume (after the person allowed the tool) gives it its chance.
func agentDenied(in *Input) (Action, bool) {
	since := in.SinceResume()
	if len(since) < 2 {
		return Action{}, false
	}
	var call, format string
	for _, it := range since[len(since)-2:] {
		if len(it.FilesChanged) > 0 {
			return Action{}, false
		}
		call = ""
		for _, tc := range it.ToolCalls {
			if tc.Denied {
				call = strings.TrimSpace(tc.ToolName + " " + record.HeadChars(tc.ArgumentsSummary, 100))
				break
			}
		}
		if call == "" {
			return Action{}, false
		}
		if it.Agent != nil {
			format = it.Agent.Format
		}
	}
	hint, ok := deniedHints[format]
	if !ok {
		hint = deniedHints["claude"] + "; " + deniedHints["gemini"]
	}
	return stop(record.RunFailed, "agent cannot work: its CLI denied "+call+
		" in 2 iterations in a row that changed nothing: allow the tool ("+hint+")"), true
}

// deniedHints: by the agent's output format, the flags of its CLI that let
// the tools it refused run (both when the format is not known).
var deniedHints = map[string]string{
	"claude": "claude: --permission-mode acceptEdits or --allowedTools",
	"gemini": "gemini: --approval-mode auto_edit, --allowed-tools or --yolo",
}

// validationCannotRun: the last validation could not start its command
// (126/127, and the shell said so: loop-validate's cannot_run, in any
// language, or an older record's "not found" or "permission denied"; or
// it never started, with no sh to say so): every
// further agent call would be paid for nothing, and a rewritten prompt
// cannot help. A resume gives a person's fix its chance.
func validationCannotRun(in *Input) (Action, bool) {
	since := in.SinceResume()
	if len(since) == 0 {
		return Action{}, false
	}
	it := since[len(since)-1]
	if it.ExitCode == -1 && it.ValidationCannotRun && it.Error != nil { // it never started: no sh to run it, say
		return stop(record.RunFailed, "validation cannot run: "+headChars(*it.Error, WhyChars)), true
	}
	if it.ExitCode != 126 && it.ExitCode != 127 {
		return Action{}, false
	}
	lines := strings.Split(strings.TrimSpace(it.Stderr), "\n")
	why := headChars(strings.TrimSpace(lines[len(lines)-1]), WhyChars)
	low := strings.ToLower(it.Stderr)
	if !it.ValidationCannotRun && !strings.Contains(low, "not found") && !strings.Contains(low, "permission denied") {
		return Action{}, false
	}
	return stop(record.RunFailed, fmt.Sprintf("validation cannot run: %s (exit %d)", why, it.ExitCode)), true
}

// completed: the last iteration's validation passed (and the agent said it
// was done, when that is required).
func completed(in *Input) (Action, bool) {
	if !completionDetected(in) || !accepted(in) {
		return Action{}, false
	}
	return stop(record.RunCompleted, ""), true
}

// AgentFailed reports whether an iteration's agent step failed as a
// process: it did not run, exited non-zero or timed out, and made no tool
// call. A failing test after real work is not an agent failure.
func AgentFailed(it *record.IterationLog) bool {
	ag := it.Agent
	if ag == nil {
		return true
	}
	if len(it.ToolCalls) > 0 {
		return false
	}
	return ag.TimedOut || ag.ExitCode == nil || *ag.ExitCode != 0 || ag.ErrorKind != nil
}

// agentFailing: the agent failed max_agent_failures times in a row since
// the latest resume; rate-limited attempts are skipped, neither counted nor
// breaking the streak.
func agentFailing(in *Input) (Action, bool) {
	limit := in.Set().MaxAgentFailures
	if limit <= 0 {
		return Action{}, false
	}
	since := in.SinceResume()
	n := 0
	var last *record.IterationLog
	for i := len(since) - 1; i >= 0 && n < limit; i-- {
		it := since[i]
		if it.Agent != nil && it.Agent.RateLimited {
			continue
		}
		if !AgentFailed(it) {
			break
		}
		if last == nil {
			last = it
		}
		n++
	}
	if n < limit {
		return Action{}, false
	}
	return stop(record.RunFailed, "agent failed "+Count(n, "time")+" in a row: "+AgentError(last)), true
}

// AgentError describes what went wrong with an iteration's agent step.
func AgentError(it *record.IterationLog) string {
	ag := it.Agent
	switch {
	case ag == nil:
		return "no agent step was recorded"
	case ag.Error != nil && *ag.Error != "":
		return *ag.Error
	case ag.TimedOut:
		return fmt.Sprintf("timed out after %.1fs", float64(ag.DurationMs)/1000)
	case ag.ExitCode == nil:
		return "did not exit by itself"
	}
	return fmt.Sprintf("exit status %d", *ag.ExitCode)
}

// overBudget: the run's spend passed --max-cost or --max-tokens. Tokens
// are input plus output: cache reads and writes are not counted.
func overBudget(in *Input) (Action, bool) {
	r := in.Run
	if limit := in.Set().MaxCost; limit > 0 && r.TotalCostUSD != nil && *r.TotalCostUSD > limit {
		return stop(record.RunFailed, fmt.Sprintf("cost cap reached: $%s spent, cap $%s",
			strconv.FormatFloat(*r.TotalCostUSD, 'f', -1, 64), strconv.FormatFloat(limit, 'f', -1, 64))), true
	}
	if limit := in.Set().MaxTokens; limit > 0 {
		if used := agent.SatAdd(val(r.TotalInputTokens), val(r.TotalOutputTokens)); used > limit {
			return stop(record.RunFailed, fmt.Sprintf("token cap reached: %d tokens used, cap %d", used, limit)), true
		}
	}
	return Action{}, false
}

// outOfIterations: max_iterations ran without success.
func outOfIterations(in *Input) (Action, bool) {
	max := in.Set().MaxIterations
	if in.LastNumber() < max {
		return Action{}, false
	}
	a := stop(record.RunStuck, "no success after "+Count(in.LastNumber(), "iteration"))
	if in.Set().StuckAgent {
		a.Extra = map[string]string{"ask_hypotheses": "1"}
		if t := stepTimeout(in); t != "" { // its call is cut at --max-duration as a step's
			a.Extra["step_timeout"] = t
		}
		if d := deadline(in); d != "" { // its retries too
			a.Extra["deadline_ms"] = d
		}
	}
	return a, true
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return strings.TrimSpace(*s)
}

func val(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// Count is "1 iteration", "2 iterations": messages read by people.
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
