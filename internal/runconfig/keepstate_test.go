package runconfig

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// sums stands for run.json's totals (record.Totals, which imports this
// package).
type sums struct {
	In   *int64   `json:"total_input_tokens"`
	Cost *float64 `json:"total_cost_usd"`
}

func keepSums(t *testing.T, dir string, s *Settings, totals string) {
	t.Helper()
	if err := KeepTotals(dir, s, []byte(totals)); err != nil {
		t.Fatal(err)
	}
}

// TestEnforceWithTotals: one read of the kept state gives back both the
// state and the totals an agent changed in run.json, naming each; a total
// the kept file replaced (a writer cut before run.json's rename) is taken
// unnamed; with the settings no longer kept the state is run.json's, as
// with Enforce, while the totals are still taken.
func TestEnforceWithTotals(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir := filepath.Join(t.TempDir(), "runs", "r1")
	s := Defaults()
	s.MaxIterations, s.Agent, s.DrivenMS = 2, []string{"sh"}, 1000
	if err := Keep(dir, &s); err != nil {
		t.Fatal(err)
	}
	keepSums(t, dir, &s, `{"total_input_tokens":100,"total_cost_usd":1.5}`)

	zero, none := 0.0, int64(0)
	forged := s
	forged.DrivenMS = 0
	got := sums{&none, &zero}
	EnforceWithTotals(dir, &forged, &got)
	if forged.DrivenMS != 1000 || got.In == nil || *got.In != 100 || got.Cost == nil || *got.Cost != 1.5 {
		t.Errorf("enforced driven_ms %d, totals %v %v", forged.DrivenMS, got.In, got.Cost)
	}
	if ch := forged.Changed(); !slices.Equal(ch, []string{"driven_ms", "total_cost_usd", "total_input_tokens"}) {
		t.Errorf("changed %q", ch)
	}
	alone := s
	alone.DrivenMS = 0
	if ch := Enforce(dir, &alone); !slices.Equal(ch, []string{"driven_ms"}) || alone.DrivenMS != 1000 {
		t.Errorf("Enforce alone: %q %d", ch, alone.DrivenMS)
	}

	// the next write keeps cost 2.5 and is cut before run.json's rename
	keepSums(t, dir, &s, `{"total_input_tokens":100,"total_cost_usd":2.5}`)
	onDisk, in, cost := s, int64(100), 1.5
	got = sums{&in, &cost}
	EnforceWithTotals(dir, &onDisk, &got)
	if *got.Cost != 2.5 || len(onDisk.Changed()) != 0 {
		t.Errorf("a cut write: cost %v, changed %q", *got.Cost, onDisk.Changed())
	}

	kept, _ := keptPath(dir)
	if err := os.Remove(kept); err != nil {
		t.Fatal(err)
	}
	unkept := s
	unkept.DrivenMS = 7
	none = 0 // json.Unmarshal wrote 100 through the pointer
	got = sums{&none, nil}
	EnforceWithTotals(dir, &unkept, &got)
	if unkept.DrivenMS != 7 || *got.In != 100 || got.Cost == nil || *got.Cost != 2.5 ||
		!slices.Equal(unkept.Changed(), []string{"total_cost_usd", "total_input_tokens"}) {
		t.Errorf("settings not kept: driven_ms %d, totals %v %v, changed %q", unkept.DrivenMS, *got.In, got.Cost, unkept.Changed())
	}
}
