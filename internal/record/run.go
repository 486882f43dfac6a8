package record

import "github.com/loopkit/loopkit/internal/runconfig"

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

// RunSchema is the schema_version of the run.json this version writes. A
// change an older writer would lose (it rewrites run.json whole, without
// the fields it does not know) raises it; a writer refuses a run.json of
// a higher one (store.ErrNewerRun), so no older version drops a newer
// one's fields.
const RunSchema = 1

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
	PlanAdvancedOnFailure bool `json:"plan_advanced_on_failure,omitempty"`
	// CannotRun is the command's loop-validate cannot_run: its sh could
	// not start a command (126/127).
	CannotRun   bool   `json:"cannot_run,omitempty"`
	InputDigest string `json:"input_digest"`
	CreatedAt   int64  `json:"created_at"`
}
