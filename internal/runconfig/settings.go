// Package runconfig owns a run's settings: the Settings struct below is
// the schema. Each field is one setting, and its tags say everything about
// it: the name it is stored and sent to the driver under (json), its flag
// (flag, arg), environment variable (env), config key (config: seed 003's
// name where the seed has one; alias: older names still read), default,
// range or choices, and its help line. The driver's flags, its help, the
// known config keys and the checks are all read from these tags; a new
// setting is one field here, then the code that uses it.
//
// Settings are resolved once, when a run is created (Resolve: flags >
// environment > --config/LOOP_CONFIG > the store's config > defaults, see
// Resolve), checked once (runcheck.Check), stored typed in run.json and in a copy
// the workspace cannot reach (Keep); everyone after reads the typed values.
package runconfig

// Settings are a run's settings. Fields without a flag, env or config tag
// are filled by the driver itself (the plan, the worktree's branch, the
// agent's argv); fields tagged state are the driver's running state, kept
// with the settings in run.json for old readers but never fixed at start.
type Settings struct {
	// What runs, and where.
	Prompt   string   `json:"prompt,omitempty" flag:"prompt" arg:"FILE" check:"file" help:"task prompt template (<<progress>> or appended)"`
	Plan     string   `json:"plan,omitempty"`
	Validate string   `json:"validate,omitempty" flag:"validate" arg:"'CMD'" env:"LOOP_VALIDATE" config:"verify_cmds" help:"validation, run with sh -c (config: verify_cmds)"`
	Agent    []string `json:"agent,omitempty"`
	Dir      string   `json:"dir,omitempty" flag:"dir" arg:"DIR" default:"." check:"dir" help:"workspace (default: the current directory)"`
	// ConfigFile is the --config/LOOP_CONFIG file the run started with:
	// its resume reads it again, not the store's config alone.
	ConfigFile string `json:"config_file,omitempty"`
	Model      string `json:"model,omitempty" flag:"model" arg:"M" env:"LOOP_MODEL" config:"model" nodash:"1" help:"model for the agent: claude/gemini/codex/opencode get their model flag (config model)"`

	// Bounds.
	MaxIterations    int      `json:"max_iterations,omitempty" flag:"max-iterations" arg:"N" env:"LOOP_ITERATIONS" config:"iterations" alias:"max_iterations" default:"10" range:"1,1000000" help:"iterations before the run is stuck (default 10; config: iterations)"`
	Timeout          Duration `json:"timeout,omitempty" flag:"timeout" arg:"D" env:"LOOP_TIMEOUT" config:"claude_timeout_sec" default:"30m" help:"agent step timeout (default 30m)"`
	ValidateTimeout  Duration `json:"validate_timeout,omitempty" flag:"validate-timeout" arg:"D" env:"LOOP_VALIDATE_TIMEOUT" config:"verify_timeout_sec" default:"10m" help:"validation timeout (default 10m)"`
	Retries          int      `json:"retries,omitempty" flag:"retries" arg:"N" env:"LOOP_RETRIES" config:"claude_retries" default:"0" range:"0,100" help:"agent retries on failure (config: claude_retries)"`
	RetryBackoff     Duration `json:"retry_backoff,omitempty" flag:"retry-backoff" arg:"D" env:"LOOP_RETRY_BACKOFF" config:"claude_retry_backoff_sec" default:"5s" help:"first retry backoff, doubling"`
	MaxAgentFailures int      `json:"max_agent_failures,omitempty" flag:"max-agent-failures" arg:"N" env:"LOOP_MAX_AGENT_FAILURES" config:"max_agent_failures" default:"3" range:"0,1000000" help:"agent failures in a row that fail the run (3)"`
	MaxCost          float64  `json:"max_cost,omitempty" flag:"max-cost" arg:"USD" env:"LOOP_MAX_COST" config:"max_cost" range:"0,1e9" help:"fail the run once its cost passes USD"`
	MaxTokens        int64    `json:"max_tokens,omitempty" flag:"max-tokens" arg:"N" env:"LOOP_MAX_TOKENS" config:"max_tokens" range:"0,9e15" help:"fail the run once input+output tokens pass N"`
	MaxDuration      Duration `json:"max_duration,omitempty" flag:"max-duration" arg:"D" env:"LOOP_MAX_DURATION" config:"max_duration" help:"fail the run once its drivers have worked D (a step then gets 1m more)"`
	DurationGrace    Duration `json:"duration_grace,omitempty" env:"LOOP_DURATION_GRACE" default:"1m" note:"the extra time a step cut by --max-duration gets to finish"`

	// Completion.
	RequireCompletion bool     `json:"require_completion,omitempty" flag:"require-completion" help:"also require the agent's completion marker"`
	CompletionMode    string   `json:"completion_mode,omitempty" flag:"completion-mode" arg:"M" env:"LOOP_COMPLETION_MODE" config:"completion_mode" default:"trailing" choice:"trailing|exact" help:"trailing (default) or exact"`
	Reviewer          string   `json:"reviewer,omitempty" flag:"reviewer" arg:"'CMD'" config:"reviewer" help:"review each iteration (config reviewer)"`
	ReviewMarker      string   `json:"review_marker,omitempty" flag:"review-marker" arg:"TAG" config:"review_marker" default:"review" help:"the reviewer's verdict tag (default review)"`
	FinalVerify       []string `json:"final_verify,omitempty" flag:"final-verify" arg:"'CMD'" config:"final_verify_cmds" help:"must pass before completed (repeatable)"`
	StuckAgent        bool     `json:"stuck_agent,omitempty" flag:"stuck-agent" help:"when stuck, ask the agent for hypotheses"`

	// Spec, plan and the run's name.
	Name       string `json:"name,omitempty" flag:"name" arg:"NAME" help:"run name (default: the spec's title)"`
	SpecsDir   string `json:"specs_dir,omitempty" config:"specs_dir" path:"1" note:"where SPEC names are looked up"`
	PlansDir   string `json:"plans_dir,omitempty" config:"plans_dir" path:"1" note:"where PLAN names are looked up"`
	NameSource string `json:"run_naming_mode,omitempty" flag:"name-source" arg:"S" config:"run_naming_mode" default:"spec_slug" choice:"spec_slug|haiku|agent" help:"spec_slug (default); haiku: the agent names the run with --name-model; agent: the command --name-model names it"`
	NameModel  string `json:"run_naming_model,omitempty" flag:"name-model" arg:"M" config:"run_naming_model" help:"haiku: the naming model (default haiku); agent: the naming command"`

	// Queue.
	MaxConcurrency      int    `json:"max_concurrency,omitempty" flag:"max-concurrency" arg:"N" env:"LOOP_MAX_CONCURRENCY" config:"max_concurrency" default:"3" range:"1,10000" help:"loops on this machine at once (default 3)"`
	MaxRunsPerWorkspace int    `json:"max_runs_per_workspace,omitempty" flag:"max-runs-per-workspace" arg:"N" config:"max_runs_per_workspace" default:"0" range:"0,10000" help:"runs of one workspace at once (0: no limit)"`
	QueuePolicy         string `json:"queue_policy,omitempty" flag:"queue-policy" arg:"P" config:"queue_policy" default:"fifo" choice:"fifo|newest_first" help:"fifo (default) or newest_first"`

	// Worktree and merge.
	Worktree             bool   `json:"worktree,omitempty" flag:"worktree" help:"run in a new git worktree on branch run/<name>"`
	BaseBranch           string `json:"base_branch,omitempty" flag:"base-branch" arg:"B" config:"base_branch" help:"the worktree's base (default: detected)"`
	RunBranchPrefix      string `json:"run_branch_prefix,omitempty" flag:"run-branch-prefix" arg:"P" config:"run_branch_prefix" default:"run/" help:"the worktree branch's prefix (default run/)"`
	WorktreePathTemplate string `json:"worktree_path_template,omitempty" flag:"worktree-path-template" arg:"T" config:"worktree_path_template" path:"1" default:"../{{ repo }}.{{ run_branch | sanitize }}" help:"where the worktree goes"`
	RunBranch            string `json:"run_branch,omitempty"`
	MergeTarget          string `json:"merge_target,omitempty" flag:"merge-target" arg:"B" config:"merge_target_branch" alias:"merge_target" help:"once completed, merge the run branch into B (made from the base if missing, checked out here, never pushed; needs --worktree; config merge_target_branch)"`
	MergeStrategy        string `json:"merge_strategy,omitempty" flag:"merge-strategy" arg:"S" config:"merge_strategy" choice:"none|merge|squash" help:"squash (default), merge or none (merge_strategy)"`

	// Artifacts.
	ArtifactMode string `json:"artifact_mode,omitempty" flag:"artifact-mode" arg:"M" env:"LOOP_ARTIFACT_MODE" config:"artifact_mode" default:"workspace" choice:"workspace|mirror" help:"workspace (default) or mirror: that layout in global_log_dir too"`
	GlobalLogDir string `json:"global_log_dir,omitempty" flag:"global-log-dir" arg:"DIR" env:"LOOP_GLOBAL_LOG_DIR" config:"global_log_dir" path:"1" help:"the mirror (default $XDG_DATA_HOME/loopkit/runs)"`
	LogDir       string `json:"log_dir,omitempty" flag:"log-dir" arg:"DIR" env:"LOOP_LOG_DIR" config:"log_dir" path:"1" help:"also write each iteration's log to DIR/run-<id>/ (iter-XX.log, summary.json)"`
	ArtifactDir  string `json:"artifact_dir,omitempty" flag:"artifact-dir" arg:"DIR" env:"AGENT_ARTIFACT_DIR" config:"artifact_dir" path:"1" help:"verification artifacts in DIR/runs/<id>/"`
	Transcripts  string `json:"transcripts,omitempty" flag:"transcripts" arg:"T" env:"LOOP_TRANSCRIPTS" config:"transcripts" default:"keep" choice:"keep|drop" help:"keep (default) or drop: store nothing the agent said"`

	// Hooks, watchdog, rate limits.
	OnEvent          []string `json:"on_event,omitempty" flag:"on-event" arg:"CMD" config:"on_event" help:"run CMD (sh -c, event JSON on stdin) on completed, failed, stuck, canceled, paused, rate_limited, watchdog, cost_threshold (repeatable; on_event)"`
	HookTimeout      Duration `json:"hook_timeout,omitempty" flag:"hook-timeout" arg:"D" config:"hook_timeout" default:"10s" range:"1ms," help:"how long an on_event command may run (default 10s)"`
	Watchdog         string   `json:"watchdog,omitempty" flag:"watchdog" arg:"off" config:"watchdog" default:"on" choice:"on|off" help:"no stall signals (config: watchdog)"`
	WatchdogK        int      `json:"watchdog_k,omitempty" flag:"watchdog-k" arg:"N" config:"watchdog_k" default:"2" range:"1,1000" help:"earlier iterations a signal compares with (default 2)"`
	MaxRewrites      int      `json:"max_rewrites,omitempty" flag:"max-rewrites" arg:"N" config:"max_rewrites" default:"2" range:"0,1000" help:"prompt rewrites before a stall is stuck (default 2)"`
	RateLimitPolicy  string   `json:"rate_limit_policy,omitempty" flag:"rate-limit-policy" arg:"P" env:"LOOP_RATE_LIMIT_POLICY" config:"rate_limit_policy" default:"loop" choice:"loop|agent" help:"loop (default): stop an agent retrying a rate limit and wait here; agent: let the agent retry"`
	MaxWait          Duration `json:"max_wait,omitempty" flag:"max-wait" arg:"D" config:"max_wait" default:"6h" help:"rate-limit waiting before the run pauses (default 6h)"`
	RateLimitBackoff Duration `json:"rate_limit_backoff,omitempty" flag:"rate-limit-backoff" arg:"D" config:"rate_limit_backoff" default:"1m" help:"first wait after a rate limit without a reset time (default 1m)"`
	Account          string   `json:"account,omitempty" flag:"account" arg:"NAME" config:"account" help:"rate-limit note key (default: the agent program)"`

	// Given for one start only, never stored.
	TrustConfig bool `json:"-" flag:"trust-config" help:"accept the commands the config files name (see loop trust)"`

	// The driver's running state (state:"1"): written while the run goes,
	// never fixed at start.
	PromptCurrent string `json:"prompt_current,omitempty" state:"1"` // a rewritten or resumed prompt
	ResumedAfter  int    `json:"resumed_after,omitempty" state:"1"`  // the last iteration before the latest resume
	CostWarned    bool   `json:"cost_warned,omitempty" state:"1"`    // the start's cost warning was given
	DrivenMS      int64  `json:"driven_ms,omitempty" state:"1"`      // the drivers' working time at DrivenAt
	DrivenAt      int64  `json:"driven_at,omitempty" state:"1"`      // ms since the epoch

	bad     []string // keys whose stored values did not read (UnmarshalJSON)
	changed []string // keys run.json changed from those kept (Enforce)
}

// Tools are config keys that one command reads for itself, not settings
// of a run: each command's option struct names them in a `config` tag,
// and TestEveryConfigTagKnown checks both lists agree, ranges included,
// and that `for` (who reads the key, for docs/cli.md) names each flag.
// They are here so that the known keys are read from one place, and the
// driver checks them when a run starts (cli.Config.Tools) as the command
// would: range, choice (agent_format's are agent.Formats) and nonblank
// tags say what the command checks in its own code.
type Tools struct {
	IdleTimeout        Duration `config:"idle_timeout" for:"loop-step --idle-timeout"`
	AfterResultGrace   Duration `config:"after_result_grace" for:"loop-step --after-result-grace"`
	AgentFormat        string   `config:"agent_format" choice:"auto|claude|codex|gemini|opencode|cursor|amp|copilot|text" for:"loop-step --format"`
	MaxToolCalls       int      `config:"max_tool_calls" range:"1," for:"loop-step --max-tool-calls"`
	Prices             string   `config:"prices" for:"loop-step --prices"`
	CompletionMarker   string   `config:"completion_marker" nonblank:"1" for:"loop-step --completion-marker"`
	ProgressMaxEntries int      `config:"progress_max_entries" range:"0,100000" for:"loop-step and loop-progress --max-entries"`
	ProgressMaxChars   int      `config:"progress_max_chars" range:"0,10000000" for:"loop-step and loop-progress --max-chars"`
	ProgressExcerpt    string   `config:"progress_excerpt" choice:"tail|failures" for:"loop-step and loop-progress --excerpt"`
	InlineCapBytes     int      `config:"inline_cap_bytes" range:"0,67108864" for:"loop-validate, loop-record and loop-drive --inline-cap"`
	MaxPatchBytes      int64    `config:"max_patch_bytes" range:"1," for:"loop-record and loop-drive --max-patch-bytes"`
	AutoClean          bool     `config:"auto_clean" for:"the clean as a run ends, by keep_last and keep_days (true, the default, or false)"`
	KeepLast           int      `config:"keep_last" range:"0,1000000" for:"loop-clean --keep-last, and the clean as a run ends"`
	KeepDays           int      `config:"keep_days" range:"0,36500" for:"loop-clean --keep-days, and the clean as a run ends"`
}
