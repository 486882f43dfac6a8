// Package record holds the records the loopkit commands exchange and store.
// JSON field names are part of the interface (docs/store.md); this package
// imports nothing of ours so every other package can depend on it.
package record

import (
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

	// ValidationCannotRun is the validation's cannot_run.
	ValidationCannotRun bool `json:"validation_cannot_run,omitempty"`
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
	ErrorKindNoModel        = "model_not_found" // the API has no such model (404), or not for this account
	ErrorKindMaxTurns       = "max_turns"       // the CLI stopped at its own limit of model turns
	ErrorKindMaxBudget      = "max_budget"      // the CLI stopped at its own spending limit
	ErrorKindAPI            = "api_error"       // any other error the agent reported
)

// CannotWorkKinds are the error kinds of a step that could not have done
// any work, however often it is tried: no login, no permission, no
// program, no such model. A feature that recognises another such failure adds its kind.
var CannotWorkKinds = map[string]bool{
	ErrorKindNotFound:       true,
	ErrorKindAuthentication: true,
	ErrorKindPermission:     true,
	ErrorKindNoModel:        true,
}

// CannotWork says whether a step with this error kind and exit code could
// not have worked: a kind above, or the shell's 126/127 (a wrapper that
// could not start its agent).
func CannotWork(kind string, exitCode int) bool {
	return CannotWorkKinds[kind] || exitCode == 126 || exitCode == 127
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
