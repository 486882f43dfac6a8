// Package record holds the records the loopkit commands exchange and store.
// JSON field names are part of the interface (docs/store.md); this package
// imports nothing of ours so every other package can depend on it.
package record

import (
	"encoding/json"
	"github.com/loopkit/loopkit/internal/runconfig"
	"strconv"
)

// Record types carried in the "type" field of stdin/stdout records.
const (
	TypeValidation = "validation"
	TypeStep       = "step"
)

// Iteration statuses.
const (
	StatusPass  = "pass"
	StatusFail  = "fail"
	StatusError = "error"
)

// SummaryChars is how many characters a tool call summary keeps.
const SummaryChars = 200

// FinalMessageChars is how much of the agent's final message an IterationLog keeps.
const FinalMessageChars = 2000

// Validation is what loop-validate prints: one run of the validation command.
type Validation struct {
	Type            string   `json:"type"`
	Command         string   `json:"command"`
	Dir             string   `json:"dir,omitempty"`
	ExitCode        *int     `json:"exit_code"`
	Stdout          string   `json:"stdout"`
	Stderr          string   `json:"stderr"`
	StdoutBytes     int64    `json:"stdout_bytes"`
	StderrBytes     int64    `json:"stderr_bytes"`
	StdoutTruncated bool     `json:"stdout_truncated"`
	StderrTruncated bool     `json:"stderr_truncated"`
	StdoutFile      *string  `json:"stdout_file"`
	StderrFile      *string  `json:"stderr_file"`
	DurationMs      int64    `json:"duration_ms"`
	StartedAt       int64    `json:"started_at"`
	EndedAt         int64    `json:"ended_at"`
	TimedOut        bool     `json:"timed_out"`
	Signal          *string  `json:"signal"`
	Error           *string  `json:"error"`
	FilesChanged    []string `json:"files_changed"`
	// StrayWriter is set when a process outside the command's group may
	// still hold its output open for writing: the store then keeps exactly
	// stdout_bytes and stderr_bytes, never the growing spool file.
	StrayWriter bool `json:"stray_writer,omitempty"`
}

// ToolCall is one tool invocation of an agent step.
type ToolCall struct {
	ToolName         string `json:"tool_name"`
	ArgumentsSummary string `json:"arguments_summary"`
	ResultSummary    string `json:"result_summary"`
	IsError          bool   `json:"is_error"`
	// Subagent is set for calls made by a subagent (non-null parent_tool_use_id).
	Subagent bool `json:"subagent,omitempty"`
	// Denied is set when the agent CLI refused the call itself, under its
	// permission mode (Claude Code's permission_denials): it never ran.
	Denied bool `json:"denied,omitempty"`
}

// Failure is one failing test the validation output names, with the first
// line of its message (empty when the output gave none).
type Failure struct {
	Test    string `json:"test"`
	Message string `json:"message"`
}

// Step is what loop-step prints: one run of the agent.
type Step struct {
	Type       string  `json:"type"`
	Command    string  `json:"command"`
	Dir        string  `json:"dir,omitempty"`
	Phase      string  `json:"phase"`
	ExitCode   *int    `json:"exit_code"`
	DurationMs int64   `json:"duration_ms"`
	StartedAt  int64   `json:"started_at"`
	EndedAt    int64   `json:"ended_at"`
	TimedOut   bool    `json:"timed_out"`
	Signal     *string `json:"signal"`
	Error      *string `json:"error"`
	// ErrorKind classifies an agent failure the driver acts on; see the
	// ErrorKind* constants. Null when the agent reported no error.
	ErrorKind *string `json:"error_kind"`
	// RateLimited is set when the agent hit a usage or rate limit; the reset
	// time (Unix ms) and the line that said so are kept when known.
	RateLimited       bool    `json:"rate_limited"`
	RateLimitResetsAt *int64  `json:"rate_limit_resets_at"`
	RateLimitEvidence *string `json:"rate_limit_evidence"`
	// CannotWork is set when the step could not have worked (CannotWork):
	// the driver keeps it as an attempt and runs no validation after it.
	CannotWork bool `json:"cannot_work,omitempty"`
	// IdleTimeout is set when the agent was killed for printing nothing
	// but retry notices for --idle-timeout; KilledAfterResult when it was
	// killed for not exiting after its result line.
	IdleTimeout       bool `json:"idle_timeout"`
	KilledAfterResult bool `json:"killed_after_result"`
	// Stopped is set when loop-step stopped the agent at a notice its CLI
	// printed while retrying (a refused key; a rate limit under the loop
	// policy) rather than wait out the CLI's retries.
	Stopped                bool     `json:"stopped,omitempty"`
	Attempts               int      `json:"attempts"`
	Format                 string   `json:"format"`
	SessionID              *string  `json:"session_id"`
	LLMInputTokens         *int64   `json:"llm_input_tokens"`
	LLMOutputTokens        *int64   `json:"llm_output_tokens"`
	LLMCacheReadTokens     *int64   `json:"llm_cache_read_tokens"`
	LLMCacheCreationTokens *int64   `json:"llm_cache_creation_tokens"`
	CostUSD                *float64 `json:"cost_usd"`
	// CostSource says where cost_usd came from: reported (by the agent),
	// estimated (from a price table the user gave) or unknown.
	CostSource *string `json:"cost_source"`
	// LLMReasoningTokens is the agent's reasoning figure where it reports
	// one (informational: not added to the four above).
	LLMReasoningTokens *int64     `json:"llm_reasoning_tokens,omitempty"`
	Model              string     `json:"model,omitempty"`
	ToolCalls          []ToolCall `json:"tool_calls"`
	// ToolCallsDropped counts calls beyond loop-step's --max-tool-calls.
	ToolCallsDropped    int     `json:"tool_calls_dropped"`
	FinalMessage        string  `json:"final_message"`
	Completed           bool    `json:"completed"`
	CompletionMalformed bool    `json:"completion_malformed"`
	StdoutFile          *string `json:"stdout_file"`
	StderrFile          *string `json:"stderr_file"`
	PromptFile          *string `json:"prompt_file"`
	GitBase             *string `json:"git_base"`
	// Plan checkboxes (loop-step --plan): ticked after the step, of how
	// many, and ticked before it; absent without a plan.
	TasksDone       *int `json:"tasks_done,omitempty"`
	TasksTotal      *int `json:"tasks_total,omitempty"`
	TasksDoneBefore *int `json:"tasks_done_before,omitempty"`
	// StdoutBytes and StderrBytes are the stream sizes when the step
	// ended; StrayWriter as in Validation.
	StdoutBytes int64 `json:"stdout_bytes"`
	StderrBytes int64 `json:"stderr_bytes"`
	StrayWriter bool  `json:"stray_writer,omitempty"`
	// GitObjects is the spool directory holding the objects of git_base
	// when the work tree was dirty (never the user's repository).
	GitObjects *string `json:"git_objects,omitempty"`
	// A review step's verdict (approve, changes or none) and its notes.
	ReviewVerdict *string `json:"review_verdict,omitempty"`
	ReviewNotes   *string `json:"review_notes,omitempty"`
	// UsageIgnored names the usage figures loop-step dropped: out of range
	// (negative, absurdly large) or from a usage file it would not read.
	UsageIgnored []string `json:"usage_ignored,omitempty"`
	// TranscriptDropped: transcripts=drop removed the agent's words (its
	// streams, final message, tool arguments); FinalMessageBytes is the
	// final message's size then.
	TranscriptDropped bool   `json:"transcript_dropped,omitempty"`
	FinalMessageBytes *int64 `json:"final_message_bytes,omitempty"`
	// StepID is the run's id for this agent step (<run_id>-step-<n>), given
	// when loop-step --run wrote its STEP_STARTED event.
	StepID string `json:"step_id,omitempty"`
}

// Agent is the step's part of an IterationLog.
type Agent struct {
	Command             string `json:"command"`
	Phase               string `json:"phase"`
	ExitCode            *int   `json:"exit_code"`
	DurationMs          int64  `json:"duration_ms"`
	TimedOut            bool   `json:"timed_out"`
	Completed           bool   `json:"completed"`
	CompletionMalformed bool   `json:"completion_malformed"`
	FinalMessage        string `json:"final_message"`
	// Error and ErrorKind carry the step's failure so that logs, stuck.md
	// and the driver can name it; SessionID lets a person resume the agent.
	Error       *string `json:"error,omitempty"`
	ErrorKind   *string `json:"error_kind,omitempty"`
	SessionID   *string `json:"session_id,omitempty"`
	RateLimited bool    `json:"rate_limited,omitempty"`
	// RateLimitResetsAt: when the limit the step hit lifts (Unix ms), as
	// the agent said it; kept so the attempt shows why the run waited.
	RateLimitResetsAt *int64 `json:"rate_limit_resets_at,omitempty"`
	// KilledAfterResult: the agent gave its result but did not exit, and
	// was stopped (Gemini CLI lingers after its result): no failure.
	KilledAfterResult bool `json:"killed_after_result,omitempty"`
	// ToolCallsDropped: the step's calls past --max-tool-calls, which the
	// record's tool_calls lack.
	ToolCallsDropped int `json:"tool_calls_dropped,omitempty"`

	// Format names the agent's output format (claude, codex, ...), Model
	// the model its stream named, and
	// StartedAt/EndedAt (Unix ms) place the step in time for exports.
	Format    string `json:"format,omitempty"`
	Model     string `json:"model,omitempty"`
	StartedAt int64  `json:"started_at,omitempty"`
	EndedAt   int64  `json:"ended_at,omitempty"`
	// UsageIgnored: the step's usage_ignored.
	UsageIgnored []string `json:"usage_ignored,omitempty"`
	// StepID names the step's STEP_STARTED and STEP_FINISHED events.
	StepID string `json:"step_id,omitempty"`
	// TranscriptDropped and FinalMessageBytes: the step's, under transcripts=drop.
	TranscriptDropped bool   `json:"transcript_dropped,omitempty"`
	FinalMessageBytes *int64 `json:"final_message_bytes,omitempty"`
}

// IterationLog is one line of iterations.jsonl: the durable record of an iteration.
type IterationLog struct {
	ID                string   `json:"id"`
	RunID             string   `json:"run_id"`
	Iteration         int      `json:"iteration"`
	Status            string   `json:"status"`
	ValidationCommand string   `json:"validation_command"`
	ExitCode          int      `json:"exit_code"`
	TimedOut          bool     `json:"timed_out"`
	Signal            *string  `json:"signal"`
	Error             *string  `json:"error"`
	Stdout            string   `json:"stdout"`
	Stderr            string   `json:"stderr"`
	StdoutTruncated   bool     `json:"stdout_truncated"`
	StderrTruncated   bool     `json:"stderr_truncated"`
	StdoutBytes       int64    `json:"stdout_bytes"`
	StderrBytes       int64    `json:"stderr_bytes"`
	DurationMs        int64    `json:"duration_ms"`
	FilesChanged      []string `json:"files_changed"`
	// Failures are the failing tests loop-record found in the output.
	Failures               []Failure `json:"failures"`
	LLMInputTokens         *int64    `json:"llm_input_tokens"`
	LLMOutputTokens        *int64    `json:"llm_output_tokens"`
	LLMCacheReadTokens     *int64    `json:"llm_cache_read_tokens"`
	LLMCacheCreationTokens *int64    `json:"llm_cache_creation_tokens"`
	CostUSD                *float64  `json:"cost_usd"`
	// CostSource is the step's: reported, estimated or unknown (null in
	// records written before it was kept, and without an agent step).
	CostSource *string    `json:"cost_source"`
	ToolCalls  []ToolCall `json:"tool_calls"`
	Agent      *Agent     `json:"agent"`
	// TasksDone and TasksTotal count the plan's checkboxes after the step;
	// PlanAdvancedOnFailure says the step ticked boxes the validation refused.
	TasksDone             *int `json:"tasks_done,omitempty"`
	TasksTotal            *int `json:"tasks_total,omitempty"`
	PlanAdvancedOnFailure bool `json:"plan_advanced_on_failure,omitempty"`
	// Review is the reviewer's verdict on the step, when one ran.
	Review *Review `json:"review,omitempty"`
	// InputDigest identifies the stdin that produced this record, so that a
	// repeated `loop-record --iteration N` with the same input is a no-op.
	InputDigest string `json:"input_digest"`
	// DiffDigest is "sha256:<hex>" of the iteration's changes.patch (the
	// empty patch's digest when nothing changed; of the change list when
	// the patch holds only a summary); empty when the changes are unknown
	// (no git). The watchdog compares iterations by it.
	DiffDigest string `json:"diff_digest,omitempty"`
	CreatedAt  int64  `json:"created_at"`
	UpdatedAt  int64  `json:"updated_at"`

	// RunCreatedAt is the run's created_at: with the run id it names the
	// run's trace wherever the record travels. ValidationStartedAt/EndedAt
	// (Unix ms) place the validation in time.
	RunCreatedAt        int64 `json:"run_created_at,omitempty"`
	ValidationStartedAt int64 `json:"validation_started_at,omitempty"`
	ValidationEndedAt   int64 `json:"validation_ended_at,omitempty"`
}

// Attempt is one line of attempts.jsonl: an agent call of the run that is
// not an iteration (an interrupted step, a rate-limited try, a stuck-report
// agent, a reviewer, a naming call). Its tokens and cost count in the run's
// totals; iterations.jsonl stays numbered 1..N without it.
type Attempt struct {
	ID        string `json:"id"` // <run_id>-attempt-<n>
	RunID     string `json:"run_id"`
	Attempt   int    `json:"attempt"` // 1, 2, ... within the run
	Kind      string `json:"kind"`
	Iteration int    `json:"iteration"` // the last iteration when recorded (0: none), or the one a reviewer reviewed
	Agent     *Agent `json:"agent"`
	// Tokens and cost as in IterationLog: null when unknown.
	LLMInputTokens         *int64     `json:"llm_input_tokens"`
	LLMOutputTokens        *int64     `json:"llm_output_tokens"`
	LLMCacheReadTokens     *int64     `json:"llm_cache_read_tokens"`
	LLMCacheCreationTokens *int64     `json:"llm_cache_creation_tokens"`
	CostUSD                *float64   `json:"cost_usd"`
	CostSource             *string    `json:"cost_source"` // as in IterationLog
	ToolCalls              []ToolCall `json:"tool_calls"`
	InputDigest            string     `json:"input_digest"`
	CreatedAt              int64      `json:"created_at"`
}

// Attempt kinds; other lower-case words are accepted as given.
const (
	AttemptInterrupted = "interrupted"
	AttemptRateLimited = "rate_limited"
	AttemptStuckReport = "stuck_report"
	AttemptReviewer    = "reviewer"
	AttemptNaming      = "naming"
	AttemptCannotWork  = "cannot_work" // a step that could not work: no validation ran
	AttemptAgent       = "agent"       // any other agent call
)

// AttemptID is the id of attempt n of a run: <run_id>-attempt-<n>.
func AttemptID(runID string, n int) string {
	return runID + "-attempt-" + strconv.Itoa(n)
}

// Error kinds of a step (Step.ErrorKind): what went wrong with the agent
// itself, as opposed to the work it did.
const (
	ErrorKindNotFound       = "not_found"      // the agent command could not start (126/127)
	ErrorKindAuthentication = "authentication" // not logged in, bad API key
	ErrorKindPermission     = "permission"     // the account may not do this
	ErrorKindRateLimit      = "rate_limit"     // usage or rate limit reached
	ErrorKindOverloaded     = "overloaded"     // the service is busy (5xx, overloaded)
	ErrorKindInvalidRequest = "invalid_request"
	ErrorKindMaxTurns       = "max_turns" // the CLI stopped at its own limit of model turns
	ErrorKindAPI            = "api_error" // any other error the agent reported
)

// CannotWorkKinds are the error kinds of a step that could not have done
// any work, however often it is tried: no login, no permission, no
// program. A feature that recognises another such failure adds its kind.
var CannotWorkKinds = map[string]bool{
	ErrorKindNotFound:       true,
	ErrorKindAuthentication: true,
	ErrorKindPermission:     true,
}

// CannotWork says whether a step with this error kind and exit code could
// not have worked: a kind above, or the shell's 126/127 (a wrapper that
// could not start its agent).
func CannotWork(kind string, exitCode int) bool {
	return CannotWorkKinds[kind] || exitCode == 126 || exitCode == 127
}

// Run statuses.
const (
	RunRunning   = "running"
	RunCompleted = "completed"
	RunFailed    = "failed"
	RunStuck     = "stuck"
	RunCanceled  = "canceled"
	RunPaused    = "paused"
	// RunQueued: created, its driver waiting for a slot (max_concurrency,
	// max_runs_per_workspace); running once it has one.
	RunQueued = "queued"
)

// RunStatuses lists every valid run status.
var RunStatuses = []string{RunRunning, RunCompleted, RunFailed, RunStuck, RunCanceled, RunPaused, RunQueued}

// Terminal reports whether a run status ends the run.
func Terminal(status string) bool {
	return status == RunCompleted || status == RunFailed || status == RunStuck || status == RunCanceled
}

// Run is run.json.
type Run struct {
	SchemaVersion            int                `json:"schema_version"`
	RunID                    string             `json:"run_id"`
	Name                     string             `json:"name"`
	NameSource               string             `json:"name_source,omitempty"` // flag, spec_slug or agent
	Status                   string             `json:"status"`
	Iteration                int                `json:"iteration"`
	Attempts                 int                `json:"attempts"`
	Passed                   int                `json:"passed"`
	Failed                   int                `json:"failed"`
	ValidationCommand        string             `json:"validation_command"`
	WorkspaceRoot            string             `json:"workspace_root"`
	SpecPath                 *string            `json:"spec_path"`
	PlanPath                 *string            `json:"plan_path"`
	Settings                 runconfig.Settings `json:"settings"`
	PID                      *int               `json:"pid"`
	PGID                     *int               `json:"pgid"`
	Progress                 string             `json:"progress"`
	LastError                *string            `json:"last_error"`
	ArtifactPath             *string            `json:"artifact_path"`
	ArtifactStatus           string             `json:"artifact_status"`
	TotalInputTokens         *int64             `json:"total_input_tokens"`
	TotalOutputTokens        *int64             `json:"total_output_tokens"`
	TotalCacheReadTokens     *int64             `json:"total_cache_read_tokens"`
	TotalCacheCreationTokens *int64             `json:"total_cache_creation_tokens"`
	TotalDurationMs          int64              `json:"total_duration_ms"`
	TotalCostUSD             *float64           `json:"total_cost_usd"`
	StuckAt                  *int64             `json:"stuck_at"`
	ResolvedAt               *int64             `json:"resolved_at"`
	CreatedAt                int64              `json:"created_at"`
	UpdatedAt                int64              `json:"updated_at"`
	// Watchdog is the watchdog's state: what it checked and rewrote.
	Watchdog *Watchdog `json:"watchdog,omitempty"`
	// Merge is the latest merge of the run's branch into its merge target.
	Merge *Merge `json:"merge,omitempty"`

	// PIDStart and PGIDStart are the OS start times of the driver (pid) and
	// of its group's leader (internal/procid): never signal a pid whose
	// start time differs, it is another process.
	PIDStart  *uint64 `json:"pid_start,omitempty"`
	PGIDStart *uint64 `json:"pgid_start,omitempty"`

	// GitConfigNeutralised lists the commands of the repository's own
	// config that loopkit's git stopped running: the config changed
	// during the run (said once, with a GIT_CONFIG_CHANGED event).
	GitConfigNeutralised []string `json:"git_config_neutralised,omitempty"`
}

// Merge is the merge of a completed worktree run's branch into a target
// branch; Status is started, merged or failed (Error says why).
type Merge struct {
	RunBranch  string   `json:"run_branch"`
	Target     string   `json:"target"`
	Strategy   string   `json:"strategy"`
	Iteration  int      `json:"iteration"` // the last iteration when it ran
	Status     string   `json:"status"`
	Commit     string   `json:"commit,omitempty"`      // the target's head after it
	WorkCommit string   `json:"work_commit,omitempty"` // the run's uncommitted work, committed on its branch first
	Created    bool     `json:"created,omitempty"`     // the target was made from the base branch
	Error      string   `json:"error,omitempty"`
	Conflicts  []string `json:"conflicts,omitempty"`
	// Untracked are the primary's untracked or ignored files the merge
	// would have overwritten: it was refused.
	Untracked []string `json:"untracked,omitempty"`
	// Unignored are the primary's files ignored before the merge and not
	// after it: the merge changed a .gitignore.
	Unignored []string `json:"unignored,omitempty"`
	StartedAt int64    `json:"started_at"`
	EndedAt   int64    `json:"ended_at,omitempty"`
}

// Merge statuses.
const (
	MergeStarted = "started"
	MergeMerged  = "merged"
	MergeFailed  = "failed"
)

// Watchdog is the watchdog's part of run.json, changed with the events that
// record its decisions (WATCHDOG_SIGNAL, WATCHDOG_REWRITE) under one lock.
type Watchdog struct {
	// Checked is the last iteration a watchdog check fired on (a check
	// where nothing fires writes nothing).
	Checked int `json:"checked"`
	// Rewrites counts prompt rewrites; Since is the iteration of the last
	// one (signals look only at the iterations after it); Prompt is the
	// prompt file the next step uses (the newest rewrite), "" for the
	// run's own prompt.
	Rewrites int    `json:"rewrites"`
	Since    int    `json:"since"`
	Prompt   string `json:"prompt,omitempty"`
	// Fired lists every signal that fired, in order.
	Fired []Signal `json:"fired,omitempty"`
}

// Signal is one watchdog signal that fired at an iteration, with the
// iterations it compared and the evidence a person can check.
type Signal struct {
	Name       string `json:"signal"`
	Iteration  int    `json:"iteration"`
	Iterations []int  `json:"iterations"`
	Evidence   string `json:"evidence"`
}

// Verification is one line of verify.jsonl: one command of the final
// verification, run once completion was detected after Iteration.
type Verification struct {
	ID              string  `json:"id"` // <run_id>-verify-<n>
	RunID           string  `json:"run_id"`
	Verification    int     `json:"verification"` // 1, 2, ... within the run
	Iteration       int     `json:"iteration"`    // the iteration it verified
	Command         string  `json:"command"`
	Status          string  `json:"status"` // pass, fail or error, as an iteration's
	ExitCode        int     `json:"exit_code"`
	TimedOut        bool    `json:"timed_out"`
	Error           *string `json:"error"`
	Stdout          string  `json:"stdout"`
	Stderr          string  `json:"stderr"`
	StdoutTruncated bool    `json:"stdout_truncated"`
	StderrTruncated bool    `json:"stderr_truncated"`
	DurationMs      int64   `json:"duration_ms"`
	// PlanAdvancedOnFailure: the verified iteration ticked plan boxes that
	// this failing command refuses.
	PlanAdvancedOnFailure bool   `json:"plan_advanced_on_failure,omitempty"`
	InputDigest           string `json:"input_digest"`
	CreatedAt             int64  `json:"created_at"`
}

// Event types of events.jsonl.
const (
	EventRunCreated        = "RUN_CREATED"
	EventRunStarted        = "RUN_STARTED"
	EventStepStarted       = "STEP_STARTED"
	EventStepFinished      = "STEP_FINISHED"
	EventIterationRecorded = "ITERATION_RECORDED"
	EventRunCompleted      = "RUN_COMPLETED"
	EventRunFailed         = "RUN_FAILED"
	EventRunStuck          = "RUN_STUCK"
	EventRunResolved       = "RUN_RESOLVED"
	EventRunCanceled       = "RUN_CANCELED"
	EventFinalVerify       = "FINAL_VERIFY" // one final verification command ran
	EventRunQueued         = "RUN_QUEUED"   // its driver waits for a slot
	EventWatchdogSignal    = "WATCHDOG_SIGNAL"
	EventWatchdogRewrite   = "WATCHDOG_REWRITE"
	EventRateLimited       = "RATE_LIMITED"
	EventRunPaused         = "RUN_PAUSED"
	EventRunResumed        = "RUN_RESUMED"
	EventMergeStarted      = "MERGE_STARTED" // a completed run's branch is being merged
	EventMergeCompleted    = "MERGE_COMPLETED"
	EventMergeFailed       = "MERGE_FAILED"
	// EventGitConfigChanged: the repository's config changed during the
	// run; loopkit's git stops running the commands it names.
	EventGitConfigChanged = "GIT_CONFIG_CHANGED"
	// EventSettingsRestored: run.json's settings were changed during the
	// run; the settings fixed at start were used and written back.
	EventSettingsRestored = "SETTINGS_RESTORED"
)

// StatusEvent maps a run status to the event recording the change to it.
func StatusEvent(status string) string {
	switch status {
	case RunRunning:
		return EventRunStarted
	case RunCompleted:
		return EventRunCompleted
	case RunFailed:
		return EventRunFailed
	case RunStuck:
		return EventRunStuck
	case RunCanceled:
		return EventRunCanceled
	case RunQueued:
		return EventRunQueued
	case RunPaused:
		return EventRunPaused
	}
	return ""
}

// Event is one line of events.jsonl. Payload fields are flattened into the line.
type Event struct {
	TS        int64  `json:"ts"`
	RunID     string `json:"run_id"`
	Type      string `json:"type"`
	Iteration *int   `json:"iteration,omitempty"`
	ExitCode  *int   `json:"exit_code,omitempty"`
	Status    string `json:"status,omitempty"`
	Message   string `json:"message,omitempty"`
	// Watchdog and rate-limit payloads.
	Signal            string `json:"signal,omitempty"`
	Evidence          string `json:"evidence,omitempty"`
	PromptBefore      string `json:"prompt_before,omitempty"`
	PromptAfter       string `json:"prompt_after,omitempty"`
	RateLimitResetsAt *int64 `json:"rate_limit_resets_at,omitempty"`
	WaitMs            *int64 `json:"wait_ms,omitempty"`
	// Seed 003's payloads (see PayloadKeys): RUN_CREATED's run,
	// RUN_STARTED's driver, STEP_STARTED/STEP_FINISHED's agent step,
	// RUN_COMPLETED's completion mode, RUN_FAILED's reason.
	Name       string  `json:"name,omitempty"`
	NameSource *string `json:"name_source,omitempty"`
	SpecPath   *string `json:"spec_path,omitempty"`
	PlanPath   *string `json:"plan_path,omitempty"`
	WorkerID   *string `json:"worker_id,omitempty"`
	StepID     string  `json:"step_id,omitempty"`
	Phase      string  `json:"phase,omitempty"`
	Attempt    *int    `json:"attempt,omitempty"`
	DurationMs *int64  `json:"duration_ms,omitempty"`
	OutputPath *string `json:"output_path,omitempty"`
	Mode       *string `json:"mode,omitempty"`
	Reason     *string `json:"reason,omitempty"`
	// Rule is the driver's rule that decided a status change (internal/
	// nextaction: over-budget, watchdog, rate-limited, ...).
	Rule string `json:"rule,omitempty"`
}

// PayloadKeys are the keys an event of a type always carries (seed 003's
// payloads): a key with no value is written as null, never left out.
var PayloadKeys = map[string][]string{
	EventRunCreated:      {"name", "name_source", "spec_path", "plan_path"},
	EventRunStarted:      {"worker_id"},
	EventStepStarted:     {"step_id", "phase", "attempt"},
	EventStepFinished:    {"step_id", "exit_code", "duration_ms", "output_path"},
	EventWatchdogRewrite: {"step_id", "signal", "prompt_before", "prompt_after"},
	EventRunCompleted:    {"mode"},
	EventRunFailed:       {"reason"},
}

// MarshalJSON writes the event's fields flat, and every key PayloadKeys
// lists for its type, null when it has no value.
func (e Event) MarshalJSON() ([]byte, error) {
	type plain Event // without this method
	b, err := Marshal(plain(e))
	if err != nil || len(PayloadKeys[e.Type]) == 0 {
		return b, err
	}
	var have map[string]json.RawMessage
	if err := json.Unmarshal(b, &have); err != nil {
		return nil, err
	}
	b = b[:len(b)-1] // the closing brace
	for _, k := range PayloadKeys[e.Type] {
		if _, ok := have[k]; !ok {
			b = append(b, `,"`+k+`":null`...)
		}
	}
	return append(b, '}'), nil
}

// StepID is the id of the run's n-th agent step: <run_id>-step-<n>.
func StepID(runID string, n int) string {
	return runID + "-step-" + strconv.Itoa(n)
}

// IterationID is the id of iteration n of a run: <run_id>-iter-<n>.
func IterationID(runID string, n int) string {
	return runID + "-iter-" + strconv.Itoa(n)
}

// Outcome is the status and exit code an IterationLog records for a
// validation: error and -1 when the command did not exit by itself (timed
// out, killed by a signal, could not run), else pass for 0 and fail.
func Outcome(exitCode int, timedOut bool, signal, errMsg *string) (status string, code int) {
	switch {
	case timedOut || signal != nil || errMsg != nil || exitCode < 0:
		return StatusError, -1
	case exitCode == 0:
		return StatusPass, 0
	}
	return StatusFail, exitCode
}
