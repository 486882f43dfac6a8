package hooks

import (
	"github.com/loopkit/loopkit/internal/agent"
	"github.com/loopkit/loopkit/internal/lazylog"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
)

// ForRun is a run's hooks, from its settings (checked when the run was
// made: a timeout of 0 is the default's). A run that names an agent, as a
// driver's run does, but has no settings kept outside the workspace, as a
// driver's run has, was planted in .loop/runs (the agent can write there):
// its hooks are not run, whoever records its events (a `loop cancel`).
func ForRun(st *store.Store, run *record.Run, l lazylog.Logger) *Hooks {
	if len(run.Settings.OnEvent) > 0 && runconfig.Planted(st.RunDir(run.RunID), &run.Settings) {
		l.Warn("run's on_event hooks not run: it names an agent, as a driver's run, but loopkit kept no "+
			"settings for it (the agent can write .loop/runs)", "run", run.RunID)
		return &Hooks{Store: st.Root, Log: l}
	}
	return FromSettings(&run.Settings, st.Root, l)
}

// statusEvents are the run statuses a hook hears about, by their own name.
var statusEvents = map[string]string{
	record.RunCompleted: Completed,
	record.RunFailed:    Failed,
	record.RunStuck:     Stuck,
	record.RunCanceled:  Canceled,
	record.RunPaused:    Paused,
}

// Status fires the hook event of the run's (new) status, if it has one.
func (h *Hooks) Status(st *store.Store, run *record.Run, reason string) {
	ev, ok := statusEvents[run.Status]
	if !ok || len(h.Commands) == 0 {
		return
	}
	fields := map[string]any{"status": run.Status, "iteration": run.Iteration, "total_cost_usd": run.TotalCostUSD}
	if reason != "" {
		fields["reason"] = reason
	}
	if run.Status == record.RunStuck {
		fields["stuck_report"] = st.RunPath(run.RunID, store.StuckFile)
	}
	h.Fire(ev, run.RunID, fields)
}

// Spend is what one record added to a run's totals: an iteration with
// its review, or an attempt (a rate-limited call, a cut one, ...).
type Spend struct {
	Iteration int
	CostUSD   *float64
	In, Out   *int64
}

// Add is s with another call's figures (a review's) added; a figure no
// total takes (negative, NaN, infinite) adds nothing, as in the totals.
func (s Spend) Add(cost *float64, in, out *int64) Spend {
	record.AddCostTo(&s.CostUSD, cost)
	agent.AddCountTo(&s.In, in)
	agent.AddCountTo(&s.Out, out)
	return s
}

// Cost fires cost_threshold for each of 50/80/100% of max_cost and of
// max_tokens (input plus output tokens) that the spend passed; run holds
// the totals with it counted. Every record that adds to the totals fires
// it: a threshold a reviewer's or a rate-limited call's cost passes is
// heard too.
func (h *Hooks) Cost(run *record.Run, s Spend) {
	if len(h.Commands) == 0 {
		return
	}
	if limit := run.Settings.MaxCost; limit > 0 && run.TotalCostUSD != nil {
		after, spent := *run.TotalCostUSD, 0.0
		if s.CostUSD != nil {
			spent = *s.CostUSD
		}
		for _, p := range Crossed(after-spent, after, limit) {
			h.Fire(CostThreshold, run.RunID, map[string]any{"budget": "max_cost", "percent": p, "spent": after, "limit": limit, "iteration": s.Iteration})
		}
	}
	if limit := run.Settings.MaxTokens; limit > 0 {
		after := agent.SatAdd(deref(run.TotalInputTokens), deref(run.TotalOutputTokens))
		used := min(agent.SatAdd(deref(s.In), deref(s.Out)), after)
		for _, p := range Crossed(float64(after-used), float64(after), float64(limit)) {
			h.Fire(CostThreshold, run.RunID, map[string]any{"budget": "max_tokens", "percent": p, "spent": after, "limit": limit, "iteration": s.Iteration})
		}
	}
}

func deref(v *int64) int64 {
	if v == nil {
		return 0
	}
	return *v
}
