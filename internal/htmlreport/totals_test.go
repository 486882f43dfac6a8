package htmlreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// The page's figures agree with the run's totals: the running total counts
// the paid calls that are not iterations (reviews, a rate-limited try), as
// run.json's total_cost_usd does, and the tokens line names the cache
// writes describe shows. Before, a run whose reviewer cost $0.60 of its
// $0.67 drew a running total ending at $0.02.
func TestReportTotalsAgree(t *testing.T) {
	st, id := fixture(t, 1) // one iteration of $0.02
	atts := []record.Attempt{
		{Attempt: 1, Kind: record.AttemptRateLimited, Iteration: 0, CostUSD: ptr(0.05)},
		{Attempt: 2, Kind: record.AttemptReviewer, Iteration: 1, CostUSD: ptr(0.6)},
		{Attempt: 3, Kind: record.AttemptStuckReport, Iteration: 1, CostUSD: ptr(0.1)},
		{Attempt: 4, Kind: "agent", Iteration: 1, CostUSD: ptr(-5)}, // forged: no total takes it
	}
	for _, a := range atts {
		line, err := record.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.AppendLine(st.RunPath(id, store.AttemptsFile), line); err != nil {
			t.Fatal(err)
		}
	}
	run, err := st.ReadRun(id)
	if err != nil {
		t.Fatal(err)
	}
	var in, out, cr, cw int64 = 10, 20, 3, 4
	run.TotalCostUSD, run.TotalInputTokens, run.TotalOutputTokens = ptr(0.77), &in, &out
	run.TotalCacheReadTokens, run.TotalCacheCreationTokens = &cr, &cw
	if err := st.WriteRun(run); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, st, id, Options{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"cumulative cost: $0.77", "10 in, 20 out, 3 cache read, 4 cache write"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func ptr(v float64) *float64 { return &v }
