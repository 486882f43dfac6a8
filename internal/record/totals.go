package record

import "math"

// Totals are a run's sums, the figures --max-cost and --max-tokens read.
// The agent can write run.json, so loopkit keeps them outside the
// workspace too (runconfig.KeepTotals, under these JSON keys, which are
// run.json's own: kept files from before stay readable).
type Totals struct {
	InputTokens         *int64   `json:"total_input_tokens"`
	OutputTokens        *int64   `json:"total_output_tokens"`
	CacheReadTokens     *int64   `json:"total_cache_read_tokens"`
	CacheCreationTokens *int64   `json:"total_cache_creation_tokens"`
	DurationMs          int64    `json:"total_duration_ms"`
	CostUSD             *float64 `json:"total_cost_usd"`
}

// Totals returns r's totals.
func (r *Run) Totals() Totals {
	return Totals{r.TotalInputTokens, r.TotalOutputTokens, r.TotalCacheReadTokens,
		r.TotalCacheCreationTokens, r.TotalDurationMs, r.TotalCostUSD}
}

// SetTotals replaces r's totals with t.
func (r *Run) SetTotals(t Totals) {
	r.TotalInputTokens, r.TotalOutputTokens, r.TotalCacheReadTokens = t.InputTokens, t.OutputTokens, t.CacheReadTokens
	r.TotalCacheCreationTokens, r.TotalDurationMs, r.TotalCostUSD = t.CacheCreationTokens, t.DurationMs, t.CostUSD
}

// RaiseTotals raises r's token counts and cost to floor's where they are
// lower or unknown: a recount from the logs must not lower what a budget
// reads, since the agent can rewrite a committed line's figures. The
// duration, which no budget reads, stays as counted.
func (r *Run) RaiseTotals(floor Totals) {
	up := func(dst **int64, v *int64) {
		if v != nil && (*dst == nil || **dst < *v) {
			*dst = v
		}
	}
	up(&r.TotalInputTokens, floor.InputTokens)
	up(&r.TotalOutputTokens, floor.OutputTokens)
	up(&r.TotalCacheReadTokens, floor.CacheReadTokens)
	up(&r.TotalCacheCreationTokens, floor.CacheCreationTokens)
	if c := floor.CostUSD; c != nil && (r.TotalCostUSD == nil || *r.TotalCostUSD < *c) {
		r.TotalCostUSD = c
	}
}

// CountedCost is the cost a total takes from a record: none for a figure
// a line the agent appended could hold to lower or poison a total a
// budget reads (negative, NaN, infinite).
func CountedCost(c *float64) (float64, bool) {
	if c == nil || !(*c >= 0) || math.IsInf(*c, 1) {
		return 0, false
	}
	return *c, true
}

// AddCostTo adds c to *total as every total of costs does: only what
// CountedCost takes, summed by AddCost; *total stays nil (unknown) until
// a cost is added.
func AddCostTo(total **float64, c *float64) {
	v, ok := CountedCost(c)
	if !ok {
		return
	}
	if *total != nil {
		v = AddCost(**total, v)
	}
	*total = &v
}

// AddCost is a+b to the nano-dollar, the one sum of costs (a step's calls,
// a run's steps): in float64 many small costs drift (50 × 0.001 made
// 0.05000000000000004, past a --max-cost of 0.05 a call early). Sums too
// large to scale are left as they are.
func AddCost(a, b float64) float64 {
	s := a + b
	if s >= 1e6 {
		return s
	}
	return math.Round(s*1e9) / 1e9
}
