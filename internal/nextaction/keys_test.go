package nextaction

import "github.com/loopkit/loopkit/internal/runconfig"

// The settings' keys, as run.json and the tests name them.
const (
	KeyPrompt            = "prompt"
	KeyPromptCurrent     = "prompt_current"
	KeyMaxIterations     = "max_iterations"
	KeyMaxCost           = "max_cost"
	KeyMaxTokens         = "max_tokens"
	KeyMaxAgentFailures  = "max_agent_failures"
	KeyRequireCompletion = "require_completion"
	KeyStuckAgent        = "stuck_agent"
	KeyResumedAfter      = "resumed_after"
	KeyCostWarned        = "cost_warned"
	keyAgent             = "agent"
	KeyMaxDuration       = "max_duration"
	KeyDurationGrace     = "duration_grace"
	KeyDrivenMS          = "driven_ms"
	KeyDrivenAt          = "driven_at"
	KeyTimeout           = "timeout"
	KeyReviewer          = "reviewer"
	KeyFinalVerify       = "final_verify"
	KeyMergeTarget       = "merge_target"
	KeyMergeStrategy     = "merge_strategy"
	KeyRunBranch         = "run_branch"
)

func ptrSet(m map[string]string) *runconfig.Settings {
	s := runconfig.MustFromMap(m)
	return &s
}
