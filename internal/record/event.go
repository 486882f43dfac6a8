package record

import "encoding/json"

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
