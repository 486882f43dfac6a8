package view

import (
	"testing"

	"github.com/loopkit/loopkit/internal/record"
)

// TestAttemptsTotalAsTotals: describe's attempts line sums what the run's
// totals take. A forged negative cost lowered it (the run's total ignores
// it), and two small costs kept float noise.
func TestAttemptsTotalAsTotals(t *testing.T) {
	c := func(v float64) *float64 { return &v }
	got := AttemptsTotal([]record.Attempt{
		{Kind: "rate_limited", CostUSD: c(0.1)},
		{Kind: "rate_limited", CostUSD: c(0.2)},
		{Kind: "interrupted", CostUSD: c(-1000)},
	})
	if want := "3 (rate_limited 2, interrupted 1), " + Cost(c(0.3)); got != want {
		t.Errorf("AttemptsTotal = %q, want %q", got, want)
	}
}
