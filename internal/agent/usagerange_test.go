package agent

import (
	"math"
	"testing"
)

// Sums of counts stop at int64's end: a wrapped total would read as
// negative and a token cap would never act.
func TestUsageAddSaturates(t *testing.T) {
	big, one := int64(math.MaxInt64), int64(1)
	s := Usage{InputTokens: &big}
	s.Add(Usage{InputTokens: &one})
	if *s.InputTokens != math.MaxInt64 {
		t.Fatalf("sum %d", *s.InputTokens)
	}
	if SatAdd(2, 3) != 5 || SatAdd(math.MaxInt64-1, 1) != math.MaxInt64 {
		t.Fatal("SatAdd")
	}
}

func TestUsageRange(t *testing.T) {
	neg, ok, huge := int64(-1), int64(12), MaxCallTokens+1
	nan := math.NaN()
	u := Usage{InputTokens: &neg, OutputTokens: &ok, CacheReadTokens: &huge, CostUSD: &nan}
	if bad := u.Range(); len(bad) != 3 || u.InputTokens != nil || u.CacheReadTokens != nil || u.CostUSD != nil || *u.OutputTokens != 12 {
		t.Fatalf("bad %q usage %+v", bad, u)
	}
}

// TestAddCountTo: a total of counts takes no negative figure, stays
// unknown (nil) until a count is added, and stops at int64's end.
func TestAddCountTo(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	var total *int64
	for _, v := range []*int64{nil, n(-5)} {
		if AddCountTo(&total, v); total != nil {
			t.Fatalf("AddCountTo(nil, %v) made %d, want nil", v, *total)
		}
	}
	for _, v := range []*int64{n(2), n(-1), n(3)} {
		AddCountTo(&total, v)
	}
	if total == nil || *total != 5 {
		t.Errorf("2 + 3 with a forged -1 between = %v, want 5", total)
	}
	AddCountTo(&total, n(math.MaxInt64))
	if *total != math.MaxInt64 {
		t.Errorf("past int64's end: %d", *total)
	}
}
