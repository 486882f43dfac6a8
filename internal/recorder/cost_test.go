package recorder

import (
	"testing"

	"github.com/loopkit/loopkit/internal/record"
)

// A long run's cost is a sum of many small figures: in float64, fifty
// calls of $0.001 made $0.05000000000000004, which "passes" a --max-cost of
// 0.05 one call early and showed in run.json, hooks and the stop message.
func TestCostTotalKeepsNoFloatNoise(t *testing.T) {
	run := &record.Run{}
	for range 50 {
		c := 0.001
		addUsage(run, nil, nil, nil, nil, &c)
	}
	if run.TotalCostUSD == nil || *run.TotalCostUSD != 0.05 {
		t.Fatalf("50 × $0.001 = %v, want 0.05", run.TotalCostUSD)
	}
	for _, c := range []float64{0.1, 0.2} {
		addUsage(run, nil, nil, nil, nil, &c)
	}
	if *run.TotalCostUSD != 0.35 {
		t.Fatalf("0.05 + 0.1 + 0.2 = %v, want 0.35", *run.TotalCostUSD)
	}
}
