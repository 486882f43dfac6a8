package record

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
	// CannotRun: it exited 126 or 127 with its sh's own words for a command
	// it could not start, in the person's language (loop-validate asks sh).
	CannotRun bool `json:"cannot_run,omitempty"`
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
