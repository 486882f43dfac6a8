// Package driverargs reads the command lines of `scripts/loop run` and
// `scripts/loop resume`: flags, then the environment, then the config files,
// then defaults, into the settings of the run. The bash driver hands its
// arguments over unread, so this is the only place a driver flag is defined.
package driverargs

// Option is one setting of `scripts/loop run`: the flag that gives it, the
// environment variable and config key it falls back to, and its default.
type Option struct {
	Flag    string // the flag without "--"; "" when only a config file sets it
	Arg     string // the value's name in the help; "" for a switch (value "1")
	Key     string // the setting's name
	Env     string // environment variable, or ""
	Config  string // config key, or ""
	Default string
	Help    string // one line, wrapped at 80 columns; "" leaves the flag out of the help
	Many    bool   // repeatable: every value is kept
}

// Options are the driver's settings in the order the help lists them. A new
// flag is one row here; the value reaches the driver as S[key] and the run's
// settings, checked by drivesettings.Checks when it has a check there.
var Options = []Option{
	{"prompt", "FILE", "prompt", "", "", "", "task prompt template (<<progress>> or appended)", false},
	{"validate", "'CMD'", "validate", "LOOP_VALIDATE", "verify_cmds", "", "validation, run with sh -c (config: verify_cmds)", false},
	{"max-iterations", "N", "max_iterations", "LOOP_ITERATIONS", "iterations", "10", "iterations before the run is stuck (default 10; config: iterations)", false},
	{"name", "NAME", "name", "", "", "", "run name (default: the spec's title)", false},
	{"name-source", "S", "run_naming_mode", "", "run_naming_mode", "spec_slug", "spec_slug (default) or agent (config run_naming_mode)", false},
	{"name-model", "'CMD'", "run_naming_model", "", "run_naming_model", "", "naming agent for agent (config run_naming_model)", false},
	{"reviewer", "'CMD'", "reviewer", "", "reviewer", "", "review each iteration (config reviewer)", false},
	{"review-marker", "TAG", "review_marker", "", "review_marker", "", "the reviewer's verdict tag (default review)", false},
	{"final-verify", "'CMD'", "final_verify", "", "", "", "must pass before completed (repeatable)", true},
	{"", "", "final_verify_cmds", "", "final_verify_cmds", "", "", false},
	{"", "", "specs_dir", "", "specs_dir", "", "", false},
	{"", "", "plans_dir", "", "plans_dir", "", "", false},
	{"timeout", "D", "timeout", "LOOP_TIMEOUT", "claude_timeout_sec", "30m", "agent step timeout (default 30m)", false},
	{"validate-timeout", "D", "validate_timeout", "LOOP_VALIDATE_TIMEOUT", "verify_timeout_sec", "10m", "validation timeout (default 10m)", false},
	{"retries", "N", "retries", "LOOP_RETRIES", "claude_retries", "0", "agent retries on failure (config: claude_retries)", false},
	{"retry-backoff", "D", "retry_backoff", "LOOP_RETRY_BACKOFF", "claude_retry_backoff_sec", "5s", "first retry backoff, doubling", false},
	{"max-agent-failures", "N", "max_agent_failures", "LOOP_MAX_AGENT_FAILURES", "max_agent_failures", "3", "agent failures in a row that fail the run (3)", false},
	{"max-cost", "USD", "max_cost", "LOOP_MAX_COST", "max_cost", "", "fail the run once its cost passes USD", false},
	{"max-tokens", "N", "max_tokens", "LOOP_MAX_TOKENS", "max_tokens", "", "fail the run once input+output tokens pass N", false},
	{"max-duration", "D", "max_duration", "LOOP_MAX_DURATION", "max_duration", "", "fail the run once its drivers have worked D (a step then gets 1m more)", false},
	{"", "", "duration_grace", "LOOP_DURATION_GRACE", "", "1m", "", false},
	{"require-completion", "", "require_completion", "", "", "", "also require the agent's completion marker", false},
	{"completion-mode", "M", "completion_mode", "LOOP_COMPLETION_MODE", "completion_mode", "trailing", "trailing (default) or exact", false},
	{"max-concurrency", "N", "max_concurrency", "LOOP_MAX_CONCURRENCY", "max_concurrency", "3", "loops on this machine at once (default 3)", false},
	{"max-runs-per-workspace", "N", "max_runs_per_workspace", "", "max_runs_per_workspace", "0", "runs of one workspace at once (0: no limit)", false},
	{"queue-policy", "P", "queue_policy", "", "queue_policy", "fifo", "fifo (default) or newest_first", false},
	{"worktree", "", "worktree", "", "", "", "run in a new git worktree on branch run/<name>", false},
	{"base-branch", "B", "base_branch", "", "base_branch", "", "the worktree's base (default: detected)", false},
	{"run-branch-prefix", "P", "run_branch_prefix", "", "run_branch_prefix", "run/", "the worktree branch's prefix (default run/)", false},
	{"worktree-path-template", "T", "worktree_path_template", "", "worktree_path_template", "../{{ repo }}.{{ run_branch | sanitize }}", "where the worktree goes", false},
	{"merge-target", "B", "merge_target", "", "merge_target", "", "once completed, merge the run branch into B (made from the base if missing, checked out here, never pushed; needs --worktree; config merge_target)", false},
	{"merge-strategy", "S", "merge_strategy", "", "merge_strategy", "", "squash (default), merge or none (merge_strategy)", false},
	{"stuck-agent", "", "stuck_agent", "", "", "", "when stuck, ask the agent for hypotheses", false},
	{"dir", "DIR", "dir", "", "", ".", "workspace (default: the current directory)", false},
	{"trust-config", "", "trust_config", "", "", "", "accept the commands the config files name (see loop trust)", false},
	{"log-dir", "DIR", "log_dir", "LOOP_LOG_DIR", "log_dir", "", "also write each iteration to DIR/run-<id>/ (bin/loop's layout)", false},
	{"artifact-mode", "M", "artifact_mode", "LOOP_ARTIFACT_MODE", "artifact_mode", "workspace", "workspace (default) or mirror: that layout in global_log_dir too", false},
	{"global-log-dir", "DIR", "global_log_dir", "LOOP_GLOBAL_LOG_DIR", "global_log_dir", "", "the mirror (default $XDG_DATA_HOME/loopkit/runs)", false},
	{"artifact-dir", "DIR", "artifact_dir", "AGENT_ARTIFACT_DIR", "artifact_dir", "", "verification artifacts in DIR/runs/<id>/", false},
	{"transcripts", "T", "transcripts", "LOOP_TRANSCRIPTS", "transcripts", "keep", "keep (default) or drop: store nothing the agent said", false},
	{"on-event", "CMD", "on_event", "", "on_event", "", "run CMD (sh -c, event JSON on stdin) on completed, failed, stuck, canceled, paused, rate_limited, watchdog, cost_threshold (repeatable; on_event)", true},
	{"hook-timeout", "D", "hook_timeout", "", "hook_timeout", "", "", false},
	{"watchdog", "off", "watchdog", "", "watchdog", "", "no stall signals (config: watchdog)", false},
	{"watchdog-k", "N", "watchdog_k", "", "watchdog_k", "", "earlier iterations a signal compares with (default 2)", false},
	{"max-rewrites", "N", "max_rewrites", "", "max_rewrites", "", "prompt rewrites before a stall is stuck (default 2)", false},
	{"rate-limit-policy", "P", "rate_limit_policy", "LOOP_RATE_LIMIT_POLICY", "rate_limit_policy", "loop", "loop (default): stop an agent retrying a rate limit and wait here; agent: let the agent retry", false},
	{"max-wait", "D", "max_wait", "", "max_wait", "", "rate-limit waiting before the run pauses (default 6h)", false},
	{"rate-limit-backoff", "D", "rate_limit_backoff", "", "rate_limit_backoff", "", "", false},
	{"account", "NAME", "account", "", "account", "", "rate-limit note key (default: the agent program)", false},
}

// ConfigKeys are the config keys the driver reads, for the warning about
// unknown keys.
func ConfigKeys() []string {
	var keys []string
	for _, o := range Options {
		if o.Config != "" {
			keys = append(keys, o.Config)
		}
	}
	return keys
}
