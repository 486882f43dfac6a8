package loopdrive

import (
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runname"
)

// namingStep is the naming agent's call as a step record, so the run keeps
// it as an attempt (kind naming) and counts its tokens and cost; nil when
// the agent did not start (nothing was spent).
func namingStep(command string, a *runname.Answer, callErr error) *record.Step {
	if a == nil || a.ExitCode == nil {
		return nil
	}
	s := &record.Step{
		Type: record.TypeStep, Command: command, Phase: record.AttemptNaming, ExitCode: a.ExitCode,
		DurationMs: a.Ended.Sub(a.Started).Milliseconds(), StartedAt: a.Started.UnixMilli(), EndedAt: a.Ended.UnixMilli(),
		FinalMessage: a.FinalMessage, Format: a.Format, Model: a.Model,
		LLMInputTokens: a.Usage.InputTokens, LLMOutputTokens: a.Usage.OutputTokens,
		LLMCacheReadTokens: a.Usage.CacheReadTokens, LLMCacheCreationTokens: a.Usage.CacheCreationTokens,
		CostUSD: a.Usage.CostUSD, ToolCalls: []record.ToolCall{},
	}
	if callErr != nil {
		msg := callErr.Error()
		s.Error = &msg
	}
	return s
}

// recordNaming keeps the naming agent's call (see namingStep) as an
// attempt of run id, now that the run exists. A failure is a warning: the
// run goes on without that call's cost.
func (h *holder) recordNaming(id string) {
	if h.naming == nil {
		return
	}
	// the call ran before the run existed: its STEP_STARTED comes now,
	// with the time it started
	stepID, err := h.rec.StartStep(id, record.AttemptNaming, h.naming.StartedAt)
	h.naming.StepID = stepID
	line, err2 := record.Marshal(h.naming)
	if err == nil && err2 != nil {
		err = err2
	}
	if err == nil {
		_, err = h.door.RecordAttempt(id, &record.Input{Step: h.naming, Lines: [][]byte{line}}, record.AttemptNaming) // its cost hooks too
	}
	if err != nil {
		h.env.Log.Warn("the naming agent's call was not recorded: its cost is missing from the run's totals", "run", id, "err", err)
	}
}
