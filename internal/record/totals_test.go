package record

import (
	"encoding/json"
	"reflect"
	"testing"
)

func ptr[T any](v T) *T { return &v }

// TestTotalsKeysAreRunJSONs: Totals is kept under run.json's own keys, so a
// kept file and run.json name a total alike and old kept files stay
// readable; a Run's totals go there and back unchanged.
func TestTotalsKeysAreRunJSONs(t *testing.T) {
	run := &Run{TotalInputTokens: ptr[int64](1), TotalOutputTokens: ptr[int64](2), TotalCacheReadTokens: ptr[int64](3),
		TotalCacheCreationTokens: ptr[int64](4), TotalDurationMs: 5, TotalCostUSD: ptr(0.5)}
	var kept, whole map[string]json.RawMessage
	data, _ := json.Marshal(run.Totals())
	if err := json.Unmarshal(data, &kept); err != nil {
		t.Fatal(err)
	}
	data, _ = json.Marshal(run)
	if err := json.Unmarshal(data, &whole); err != nil {
		t.Fatal(err)
	}
	if len(kept) != reflect.TypeFor[Totals]().NumField() {
		t.Errorf("totals marshal %d keys: %v", len(kept), kept)
	}
	for k, v := range kept {
		if string(whole[k]) != string(v) {
			t.Errorf("totals' %s is %s, run.json's %s", k, v, whole[k])
		}
	}
	var back Run
	back.SetTotals(run.Totals())
	if !reflect.DeepEqual(back.Totals(), run.Totals()) || back.TotalCostUSD != run.TotalCostUSD {
		t.Errorf("SetTotals(Totals()) gave %+v", back.Totals())
	}
	back.SetTotals(Totals{})
	if !reflect.DeepEqual(back, Run{}) {
		t.Errorf("SetTotals(Totals{}) left %+v", back.Totals())
	}
}

// TestRaiseTotals: a recount never lowers a total a budget reads, takes
// the floor's where the recount knows none, and leaves the duration.
func TestRaiseTotals(t *testing.T) {
	run := &Run{TotalInputTokens: ptr[int64](10), TotalOutputTokens: ptr[int64](1), TotalDurationMs: 7, TotalCostUSD: ptr(0.1)}
	run.RaiseTotals(Totals{InputTokens: ptr[int64](5), OutputTokens: ptr[int64](20), CacheReadTokens: ptr[int64](3),
		DurationMs: 1000, CostUSD: ptr(0.3)})
	if *run.TotalInputTokens != 10 || *run.TotalOutputTokens != 20 || *run.TotalCacheReadTokens != 3 ||
		run.TotalCacheCreationTokens != nil || run.TotalDurationMs != 7 || *run.TotalCostUSD != 0.3 {
		t.Errorf("raised to %+v", run.Totals())
	}
	run.RaiseTotals(Totals{CostUSD: ptr(0.2)})
	if *run.TotalCostUSD != 0.3 || *run.TotalInputTokens != 10 {
		t.Errorf("lowered to %+v", run.Totals())
	}
}

// TestAddCostTo: every total of costs takes what the run's totals take
// (no negative, NaN or infinite figure a forged line could hold), summed
// to the nano-dollar, and stays unknown (nil) until a cost is added.
func TestAddCostTo(t *testing.T) {
	nan, inf := 0.0, 1.0
	nan, inf = nan/nan, inf/0
	var total *float64
	for _, c := range []*float64{nil, ptr(-5.0), &nan, &inf} {
		if AddCostTo(&total, c); total != nil {
			t.Fatalf("AddCostTo(nil, %v) made %v, want nil", c, *total)
		}
	}
	for _, c := range []*float64{ptr(0.1), ptr(-1.0), ptr(0.2), &nan, &inf} {
		AddCostTo(&total, c)
	}
	if total == nil || *total != 0.3 {
		t.Errorf("0.1 + 0.2 with forged figures between = %v, want 0.3", total)
	}
}
