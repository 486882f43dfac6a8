package nextaction

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
)

func ptr[T any](v T) *T { return &v }

// iter builds iteration n: validation status (pass/fail) and the agent's
// exit code; tools says whether the agent made a tool call.
func iter(n int, status string, agentExit int, tools bool) *record.IterationLog {
	it := &record.IterationLog{Iteration: n, Status: status, Agent: &record.Agent{ExitCode: ptr(agentExit)}}
	if status == record.StatusPass {
		it.ExitCode = 0
	} else {
		it.ExitCode = 1
	}
	if tools {
		it.ToolCalls = []record.ToolCall{{ToolName: "Edit"}}
	}
	return it
}

func with[T any](v *T, fs ...func(*T)) *T {
	for _, f := range fs {
		f(v)
	}
	return v
}

// denied: the agent's CLI refused its Write (Claude Code's permission
// mode in -p), so the step changed nothing.
func denied(it *record.IterationLog) {
	it.Agent.Format = "claude"
	it.ToolCalls = append(it.ToolCalls, record.ToolCall{ToolName: "Read", ArgumentsSummary: `{"file_path":"calc.go"}`},
		record.ToolCall{ToolName: "Write", ArgumentsSummary: `{"file_path":"/w/notes.txt","content":"hello\\n"}`, IsError: true, Denied: true})
}

// geminiDenied: Gemini CLI in -p without --yolo refused its shell command
// (tool_not_registered).
func geminiDenied(it *record.IterationLog) {
	it.Agent.Format = "gemini"
	it.ToolCalls = append(it.ToolCalls, record.ToolCall{ToolName: "run_shell_command",
		ArgumentsSummary: `{"command":"echo world >> notes.txt"}`, IsError: true, Denied: true})
}

const deniedReason = `agent cannot work: its CLI denied Write {"file_path":"/w/notes.txt","content":"hello\\n"} ` +
	`in 2 iterations in a row that changed nothing: allow the tool (claude: --permission-mode acceptEdits or --allowedTools)`

func TestDecide(t *testing.T) {
	run := func(status string, settings map[string]string) *record.Run {
		if settings == nil {
			settings = map[string]string{}
		}
		settings[KeyPrompt] = "/p/TASK.md"
		return &record.Run{Status: status, Settings: runconfig.MustFromMap(settings)}
	}
	notLoggedIn := func(it *record.IterationLog) {
		it.Agent.Error = ptr("Not logged in · Please run /login")
		it.Agent.ErrorKind = ptr(record.ErrorKindAuthentication)
	}
	tests := []struct {
		name   string
		run    *record.Run
		recent []*record.IterationLog
		want   Action
	}{
		{"first iteration", run("running", nil), nil,
			Action{Kind: Iterate, Iteration: 1, Prompt: "/p/TASK.md", Rule: "next"}},
		{"after a failing one", run("running", nil), []*record.IterationLog{iter(1, "fail", 0, true)},
			Action{Kind: Iterate, Iteration: 2, Prompt: "/p/TASK.md", Rule: "next"}},
		{"rewritten prompt", run("running", map[string]string{KeyPromptCurrent: "/r/prompt.resume.1.md"}), nil,
			Action{Kind: Iterate, Iteration: 1, Prompt: "/r/prompt.resume.1.md", Rule: "next"}},
		{"passed", run("running", nil), []*record.IterationLog{iter(1, "fail", 0, true), iter(2, "pass", 0, true)},
			Action{Kind: Stop, Status: "completed", Exit: 0, Rule: "completed"}},
		{"passed without marker", run("running", map[string]string{KeyRequireCompletion: "1"}),
			[]*record.IterationLog{iter(1, "pass", 0, true)},
			Action{Kind: Iterate, Iteration: 2, Prompt: "/p/TASK.md", Rule: "next"}},
		{"passed with marker", run("running", map[string]string{KeyRequireCompletion: "1"}),
			[]*record.IterationLog{with(iter(1, "pass", 0, true), func(it *record.IterationLog) { it.Agent.Completed = true })},
			Action{Kind: Stop, Status: "completed", Exit: 0, Rule: "completed"}},
		{"canceled from outside", run("canceled", nil), nil,
			Action{Kind: Stop, Status: "canceled", Exit: 130, Reason: "run is canceled", Rule: "not-running"}},
		// the driver said "run ID paused: run is paused: iteration 1:
		// validation exited 2": the last iteration's error is no reason
		{"paused", with(run("paused", nil), func(r *record.Run) { r.LastError = ptr("iteration 1: validation exited 2") }),
			[]*record.IterationLog{iter(1, "fail", 0, true)},
			Action{Kind: Stop, Status: "paused", Exit: 75, Reason: "by loop pause, after its step; loop resume goes on", Rule: "not-running"}},
		{"command not found beats a passing test", run("running", nil),
			[]*record.IterationLog{with(iter(1, "pass", 127, false), func(it *record.IterationLog) {
				it.Agent.ExitCode = ptr(-1)
				it.Agent.Error = ptr("command not found: claud")
				it.Agent.ErrorKind = ptr(record.ErrorKindNotFound)
			})},
			Action{Kind: Stop, Status: "failed", Exit: 3, Reason: "agent could not start: command not found: claud", Rule: "agent-cannot-run"}},
		{"exit 127 without error text", run("running", nil), []*record.IterationLog{iter(1, "fail", 127, false)},
			Action{Kind: Stop, Status: "failed", Exit: 3, Reason: "agent could not start: exit status 127", Rule: "agent-cannot-run"}},
		{"not logged in", run("running", nil), []*record.IterationLog{with(iter(1, "fail", 1, false), notLoggedIn)},
			Action{Kind: Stop, Status: "failed", Exit: 3, Reason: "agent cannot work: Not logged in · Please run /login", Rule: "agent-cannot-run"}},
		{"not logged in before the resume", run("running", map[string]string{KeyResumedAfter: "1"}),
			[]*record.IterationLog{with(iter(1, "fail", 1, false), notLoggedIn)},
			Action{Kind: Iterate, Iteration: 2, Prompt: "/p/TASK.md", Rule: "next"}},
		{"validation not found", run("running", nil),
			[]*record.IterationLog{with(iter(1, "fail", 0, true), func(it *record.IterationLog) {
				it.ExitCode, it.Stderr = 127, "sh: 1: gotest: not found\n"
			})},
			Action{Kind: Stop, Status: "failed", Exit: 3, Reason: "validation cannot run: sh: 1: gotest: not found (exit 127)", Rule: "validation_cannot_run"}},
		{"validation not executable", run("running", nil),
			[]*record.IterationLog{with(iter(1, "fail", 0, true), func(it *record.IterationLog) {
				it.ExitCode, it.Stderr = 126, "sh: 1: ./check.sh: Permission denied\n"
			})},
			Action{Kind: Stop, Status: "failed", Exit: 3, Reason: "validation cannot run: sh: 1: ./check.sh: Permission denied (exit 126)", Rule: "validation_cannot_run"}},
		{"validation not found, a long last line", run("running", nil),
			[]*record.IterationLog{with(iter(1, "fail", 0, true), func(it *record.IterationLog) {
				it.ExitCode, it.Stderr = 127, "sh: 1: foo: not found\n"+strings.Repeat("v", 200_000)+"\n"
			})},
			Action{Kind: Stop, Status: "failed", Exit: 3, Reason: "validation cannot run: " + strings.Repeat("v", WhyChars) + "… (exit 127)", Rule: "validation_cannot_run"}},
		{"validation not found, in bash's German", run("running", nil),
			[]*record.IterationLog{with(iter(1, "fail", 0, true), func(it *record.IterationLog) {
				it.ExitCode, it.Stderr, it.ValidationCannotRun = 127, "sh: Zeile 1: ./check.sh: Datei oder Verzeichnis nicht gefunden\n", true
			})},
			Action{Kind: Stop, Status: "failed", Exit: 3, Reason: "validation cannot run: sh: Zeile 1: ./check.sh: Datei oder Verzeichnis nicht gefunden (exit 127)", Rule: "validation_cannot_run"}},
		{"a test's own 127 is a failure", run("running", nil),
			[]*record.IterationLog{with(iter(1, "fail", 0, true), func(it *record.IterationLog) {
				it.ExitCode, it.Stderr = 127, "FAIL: TestX\n"
			})},
			Action{Kind: Iterate, Iteration: 2, Prompt: "/p/TASK.md", Rule: "next"}},
		{"validation not found before the resume", run("running", map[string]string{KeyResumedAfter: "1"}),
			[]*record.IterationLog{with(iter(1, "fail", 0, true), func(it *record.IterationLog) {
				it.ExitCode, it.Stderr = 127, "sh: 1: gotest: not found\n"
			})},
			Action{Kind: Iterate, Iteration: 2, Prompt: "/p/TASK.md", Rule: "next"}},
		{"the agent's edits denied twice and nothing changed", run("running", nil),
			[]*record.IterationLog{with(iter(1, "fail", 0, false), denied), with(iter(2, "fail", 0, false), denied)},
			Action{Kind: Stop, Status: "failed", Exit: 3, Reason: deniedReason, Rule: "agent-denied"}},
		{"gemini's refusals name its flags", run("running", nil),
			[]*record.IterationLog{with(iter(1, "fail", 0, false), geminiDenied), with(iter(2, "fail", 0, false), geminiDenied)},
			Action{Kind: Stop, Status: "failed", Exit: 3, Reason: `agent cannot work: its CLI denied run_shell_command {"command":"echo world >> notes.txt"} ` +
				`in 2 iterations in a row that changed nothing: allow the tool (gemini: --approval-mode auto_edit, --allowed-tools or --yolo)`, Rule: "agent-denied"}},
		{"one denial may be the model's choice", run("running", nil), []*record.IterationLog{with(iter(1, "fail", 0, false), denied)},
			Action{Kind: Iterate, Iteration: 2, Prompt: "/p/TASK.md", Rule: "next"}},
		{"a denial beside a change is work", run("running", nil), []*record.IterationLog{with(iter(1, "fail", 0, false), denied),
			with(iter(2, "fail", 0, false), denied, func(it *record.IterationLog) { it.FilesChanged = []string{"calc.go"} })},
			Action{Kind: Iterate, Iteration: 3, Prompt: "/p/TASK.md", Rule: "next"}},
		{"a denial before the resume", run("running", map[string]string{KeyResumedAfter: "1"}),
			[]*record.IterationLog{with(iter(1, "fail", 0, false), denied), with(iter(2, "fail", 0, false), denied)},
			Action{Kind: Iterate, Iteration: 3, Prompt: "/p/TASK.md", Rule: "next"}},
		{"a denial in a passing iteration", run("running", nil), []*record.IterationLog{with(iter(1, "fail", 0, false), denied), with(iter(2, "pass", 0, false), denied)},
			Action{Kind: Stop, Status: "completed", Exit: 0, Rule: "completed"}},
		{"agent exits 1 three times", run("running", nil),
			[]*record.IterationLog{iter(1, "fail", 1, false), iter(2, "fail", 1, false), iter(3, "fail", 1, false)},
			Action{Kind: Stop, Status: "failed", Exit: 3, Reason: "agent failed 3 times in a row: exit status 1", Rule: "agent-failing"}},
		{"two failures are not yet three", run("running", nil),
			[]*record.IterationLog{iter(1, "fail", 0, true), iter(2, "fail", 1, false), iter(3, "fail", 1, false)},
			Action{Kind: Iterate, Iteration: 4, Prompt: "/p/TASK.md", Rule: "next"}},
		{"rate-limited attempts do not count", run("running", map[string]string{KeyMaxAgentFailures: "2"}),
			[]*record.IterationLog{iter(1, "fail", 1, false), with(iter(2, "fail", 1, false), func(it *record.IterationLog) { it.Agent.RateLimited = true })},
			Action{Kind: Iterate, Iteration: 3, Prompt: "/p/TASK.md", Rule: "next"}},
		{"failures with tool calls are work", run("running", map[string]string{KeyMaxAgentFailures: "1"}),
			[]*record.IterationLog{iter(1, "fail", 1, true)},
			Action{Kind: Iterate, Iteration: 2, Prompt: "/p/TASK.md", Rule: "next"}},
		{"timeouts count", run("running", map[string]string{KeyMaxAgentFailures: "1"}),
			[]*record.IterationLog{with(iter(1, "fail", 0, false), func(it *record.IterationLog) {
				it.Agent.ExitCode, it.Agent.TimedOut, it.Agent.DurationMs = nil, true, 2500
			})},
			Action{Kind: Stop, Status: "failed", Exit: 3, Reason: "agent failed 1 time in a row: timed out after 2.5s", Rule: "agent-failing"}},
		{"over the cost cap", &record.Run{Status: "running", TotalCostUSD: ptr(1.25), Settings: runconfig.MustFromMap(map[string]string{KeyMaxCost: "1"})},
			[]*record.IterationLog{iter(1, "fail", 0, true)},
			Action{Kind: Stop, Status: "failed", Exit: 3, Reason: "cost cap reached: $1.25 spent, cap $1", Rule: "over-budget"}},
		{"over the token cap", &record.Run{Status: "running", TotalInputTokens: ptr[int64](600), TotalOutputTokens: ptr[int64](500), Settings: runconfig.MustFromMap(map[string]string{KeyMaxTokens: "1000"})},
			[]*record.IterationLog{iter(1, "fail", 0, true)},
			Action{Kind: Stop, Status: "failed", Exit: 3, Reason: "token cap reached: 1100 tokens used, cap 1000", Rule: "over-budget"}},
		{"a token total at int64's end does not wrap under the cap", &record.Run{Status: "running", TotalInputTokens: ptr[int64](math.MaxInt64), TotalOutputTokens: ptr[int64](math.MaxInt64), Settings: runconfig.MustFromMap(map[string]string{KeyMaxTokens: "1000"})},
			[]*record.IterationLog{iter(1, "fail", 0, true)},
			Action{Kind: Stop, Status: "failed", Exit: 3, Reason: "token cap reached: 9223372036854775807 tokens used, cap 1000", Rule: "over-budget"}},
		{"unknown cost never stops, and is warned of", &record.Run{Status: "running", Settings: runconfig.MustFromMap(map[string]string{KeyMaxCost: "0.01"})},
			[]*record.IterationLog{iter(1, "fail", 0, true)},
			Action{Kind: Iterate, Iteration: 2, Rule: "next", Extra: map[string]string{"warning": "the agent reports no cost: --max-cost cannot act; give --max-tokens to cap this run"}}},
		{"a priced review does not hide an agent that reports no cost", &record.Run{Status: "running", TotalCostUSD: ptr(0.001), Settings: runconfig.MustFromMap(map[string]string{KeyMaxCost: "5", KeyReviewer: "r"})},
			[]*record.IterationLog{with(iter(1, "fail", 0, true), func(it *record.IterationLog) { it.Review = &record.Review{Verdict: "changes"} })},
			Action{Kind: Iterate, Iteration: 2, Rule: "next", Extra: map[string]string{"review": "1", "warning": "the agent reports no cost: --max-cost cannot act; give --max-tokens to cap this run"}}},
		{"an agent that reports its cost is not warned of", &record.Run{Status: "running", TotalCostUSD: ptr(0.01), Settings: runconfig.MustFromMap(map[string]string{KeyMaxCost: "5"})},
			[]*record.IterationLog{with(iter(1, "fail", 0, true), func(it *record.IterationLog) { it.CostUSD = ptr(0.01) })},
			Action{Kind: Iterate, Iteration: 2, Rule: "next"}},
		{"warned of at start", &record.Run{Status: "running", Settings: runconfig.MustFromMap(map[string]string{KeyMaxCost: "0.01", KeyCostWarned: "1", keyAgent: `["/usr/bin/codex","exec"]`})},
			[]*record.IterationLog{iter(1, "fail", 0, true)},
			Action{Kind: Iterate, Iteration: 2, Rule: "next"}},
		{"a known agent not warned of at start (a price table) is judged after its first step", &record.Run{Status: "running", Settings: runconfig.MustFromMap(map[string]string{KeyMaxCost: "0.01", keyAgent: `["/usr/bin/codex","exec"]`})},
			[]*record.IterationLog{iter(1, "fail", 0, true)},
			Action{Kind: Iterate, Iteration: 2, Rule: "next", Extra: map[string]string{"warning": "the agent reports no cost: --max-cost cannot act; give --max-tokens to cap this run"}}},
		{"warned once", &record.Run{Status: "running", Settings: runconfig.MustFromMap(map[string]string{KeyMaxCost: "0.01"})},
			[]*record.IterationLog{iter(1, "fail", 0, true), iter(2, "fail", 0, true)},
			Action{Kind: Iterate, Iteration: 3, Rule: "next"}},
		{"out of iterations", run("running", map[string]string{KeyMaxIterations: "2"}),
			[]*record.IterationLog{iter(1, "fail", 0, true), iter(2, "fail", 0, true)},
			Action{Kind: Stop, Status: "stuck", Exit: 1, Reason: "no success after 2 iterations", Rule: "out-of-iterations"}},
		{"stuck agent asked", run("running", map[string]string{KeyMaxIterations: "1", KeyStuckAgent: "1"}),
			[]*record.IterationLog{iter(1, "fail", 0, true)},
			Action{Kind: Stop, Status: "stuck", Exit: 1, Reason: "no success after 1 iteration", Rule: "out-of-iterations", Extra: map[string]string{"ask_hypotheses": "1"}}},
		{"resumed with more iterations", run("running", map[string]string{KeyMaxIterations: "4", KeyResumedAfter: "2"}),
			[]*record.IterationLog{iter(1, "fail", 0, true), iter(2, "fail", 0, true)},
			Action{Kind: Iterate, Iteration: 3, Prompt: "/p/TASK.md", Rule: "next"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Decide(&Input{Run: tt.run, Recent: tt.recent}, Rules)
			var g, w bytes.Buffer
			got.Write(&g)
			tt.want.Write(&w)
			if g.String() != w.String() {
				t.Errorf("got\n%s\nwant\n%s", g.String(), w.String())
			}
		})
	}
}

// A holder whose git was stopped fails the run, even after a passing
// validation; a run ended from outside keeps its status.
func TestGitStopped(t *testing.T) {
	settings := runconfig.MustFromMap(map[string]string{KeyPrompt: "/p/TASK.md"})
	recent := []*record.IterationLog{iter(1, "pass", 0, true)}
	got := Decide(&Input{Run: &record.Run{Status: "running", Settings: settings}, Recent: recent, GitStopped: true}, Rules)
	if got.Kind != Stop || got.Status != record.RunFailed || got.Exit != 3 || got.Rule != "git-stopped" ||
		!strings.HasPrefix(got.Reason, "git did not finish reading the work tree") {
		t.Errorf("git stopped after a pass: %+v", got)
	}
	got = Decide(&Input{Run: &record.Run{Status: "canceled", Settings: settings}, Recent: recent, GitStopped: true}, Rules)
	if got.Status != "canceled" || got.Rule != "not-running" {
		t.Errorf("git stopped, run canceled from outside: %+v", got)
	}
}

// A status only the driver gives (completed, stuck, failed), found by the
// run's own driver, was written by something else: the run fails (the
// agent marked its run completed with loop-record after a failed
// validation, and the driver exited 0). Asked by anyone else, or for a
// status a person gives, the run stops with it as before.
func TestStatusNotGiven(t *testing.T) {
	settings := runconfig.MustFromMap(map[string]string{KeyPrompt: "/p/TASK.md"})
	recent := []*record.IterationLog{iter(1, "fail", 1, true)}
	for _, st := range []string{record.RunCompleted, record.RunStuck, record.RunFailed, record.RunQueued} {
		got := Decide(&Input{Run: &record.Run{Status: st, Settings: settings}, Recent: recent, Driver: true}, Rules)
		if got.Kind != Stop || got.Status != record.RunFailed || got.Exit != 3 || got.Rule != "status-not-given" ||
			!strings.HasPrefix(got.Reason, "run was marked "+st+" while it ran, not by its driver") {
			t.Errorf("%s, asked by the driver: %+v", st, got)
		}
		if got := Decide(&Input{Run: &record.Run{Status: st, Settings: settings}, Recent: recent}, Rules); got.Rule != "not-running" || got.Status != st {
			t.Errorf("%s, asked by a reader: %+v", st, got)
		}
	}
	for _, st := range []string{record.RunPaused, record.RunCanceled} {
		if got := Decide(&Input{Run: &record.Run{Status: st, Settings: settings}, Recent: recent, Driver: true}, Rules); got.Rule != "not-running" || got.Status != st {
			t.Errorf("%s, asked by the driver: %+v", st, got)
		}
	}
}

func TestWrite(t *testing.T) {
	var b bytes.Buffer
	a := Action{Kind: Stop, Status: "failed", Exit: 3, Reason: "line one\nline two", Rule: "x", Extra: map[string]string{"b": "2", "a": "1"}}
	if err := a.Write(&b); err != nil {
		t.Fatal(err)
	}
	want := "action=stop\nstatus=failed\nexit=3\nreason=line one line two\nrule=x\na=1\nb=2\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// The driver prints the reason as it comes: the validation's last stderr
// line (or a tool's name) in it must not drive the terminal.
func TestWriteReasonEscaped(t *testing.T) {
	var b bytes.Buffer
	a := Action{Kind: Stop, Status: "failed", Exit: 3, Reason: "validation cannot run: x: \x1b]0;T\x07\u009b2J\u202e not found\r\n (exit 127)"}
	if err := a.Write(&b); err != nil {
		t.Fatal(err)
	}
	want := `reason=validation cannot run: x: \x1b]0;T\a\u009b2J\u202e not found   (exit 127)`
	if !strings.Contains(b.String(), want+"\n") {
		t.Errorf("got %q, want a line %q", b.String(), want)
	}
}

func TestStartWarning(t *testing.T) {
	codex := `["/opt/bin/codex","exec","--json","-"]`
	for _, tt := range []struct {
		name     string
		settings map[string]string
		want     string
	}{
		{"codex with a cost cap", map[string]string{KeyMaxCost: "1", keyAgent: codex},
			"codex reports no cost: --max-cost cannot be enforced; use --max-tokens"},
		{"and a token cap", map[string]string{KeyMaxCost: "1", KeyMaxTokens: "5000", keyAgent: codex},
			"codex reports no cost: --max-cost cannot be enforced, --max-tokens will"},
		{"no cost cap", map[string]string{keyAgent: codex}, ""},
		{"claude reports cost", map[string]string{KeyMaxCost: "1", keyAgent: `["claude","-p"]`}, ""},
		{"unknown agents are judged after the first iteration", map[string]string{KeyMaxCost: "1", keyAgent: `["sh","agent.sh"]`}, ""},
		{"no agent", map[string]string{KeyMaxCost: "1"}, ""},
	} {
		if got := StartWarning(ptrSet(tt.settings)); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

// A step kept as an attempt because it could not work fails the run by
// itself, whatever the iterations before it; a kind added to
// record.CannotWorkKinds does the same.
func TestDecideCannotWorkAttempt(t *testing.T) {
	run := &record.Run{Status: "running", Settings: runconfig.MustFromMap(map[string]string{KeyPrompt: "/p/TASK.md"})}
	recent := []*record.IterationLog{iter(1, "fail", 0, true)}
	for _, tc := range []struct {
		ag   *record.Agent
		want string
	}{
		{&record.Agent{ExitCode: ptr(1), Error: ptr("Not logged in · Please run /login"), ErrorKind: ptr(record.ErrorKindAuthentication)},
			"agent cannot work: Not logged in · Please run /login"},
		{&record.Agent{ExitCode: ptr(127), Error: ptr("exit status 127: claude: not found")},
			"agent could not start: exit status 127: claude: not found"},
		{&record.Agent{ExitCode: ptr(1), ErrorKind: ptr("auth_expired")}, "agent cannot work: auth_expired error"},
		// no such model: each iteration would fail the same, validation and all
		{&record.Agent{ExitCode: ptr(1), Error: ptr("codex turn.failed: The model `gpt-5.9` does not exist or you do not have access to it."), ErrorKind: ptr(record.ErrorKindNoModel)},
			"agent cannot work: codex turn.failed: The model `gpt-5.9` does not exist or you do not have access to it."},
	} {
		if k := deref(tc.ag.ErrorKind); k == "auth_expired" {
			record.CannotWorkKinds[k] = true
			defer delete(record.CannotWorkKinds, k)
		}
		got := Decide(&Input{Run: run, Recent: recent, Attempt: tc.ag}, Rules)
		want := Action{Kind: Stop, Status: "failed", Exit: 3, Reason: tc.want, Rule: "agent-cannot-run"}
		if got.Kind != want.Kind || got.Reason != want.Reason || got.Exit != 3 || got.Rule != want.Rule {
			t.Errorf("got %+v\nwant %+v", got, want)
		}
	}
	if got := Decide(&Input{Run: run, Recent: recent}, Rules); got.Kind != Iterate {
		t.Errorf("without the attempt: %+v", got)
	}
}

// A stop's reason is one line the driver passes to loop-record as an
// argument: however long what it quotes, it stays far below the kernel's
// 128 KiB for one argument.
func TestStopReasonCapped(t *testing.T) {
	a := stop("failed", strings.Repeat("é", 200_000))
	if want := strings.Repeat("é", ReasonChars) + "…"; a.Reason != want {
		t.Errorf("reason of %d bytes, want %d", len(a.Reason), len(want))
	}
}
