package store

import "github.com/loopkit/loopkit/internal/record"

// totals are run.json's sums that --max-cost and --max-tokens read: the
// agent can write run.json, so they are kept with the driver's state
// (runconfig.KeepTotals), outside the workspace.
type totals struct {
	In            *int64   `json:"total_input_tokens"`
	Out           *int64   `json:"total_output_tokens"`
	CacheRead     *int64   `json:"total_cache_read_tokens"`
	CacheCreation *int64   `json:"total_cache_creation_tokens"`
	DurationMs    int64    `json:"total_duration_ms"`
	Cost          *float64 `json:"total_cost_usd"`
}

func totalsOf(r *record.Run) totals {
	return totals{r.TotalInputTokens, r.TotalOutputTokens, r.TotalCacheReadTokens,
		r.TotalCacheCreationTokens, r.TotalDurationMs, r.TotalCostUSD}
}

func (t *totals) setOn(r *record.Run) {
	r.TotalInputTokens, r.TotalOutputTokens, r.TotalCacheReadTokens = t.In, t.Out, t.CacheRead
	r.TotalCacheCreationTokens, r.TotalDurationMs, r.TotalCostUSD = t.CacheCreation, t.DurationMs, t.Cost
}
