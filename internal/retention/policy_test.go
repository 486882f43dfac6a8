package retention

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
)

const now = int64(1_800_000_000_000)

// run builds a summary updated ageMs before now.
func run(id string, ageMs int64) Summary {
	return Summary{RunID: id, Status: "completed", UpdatedAt: now - ageMs}
}

func days(n float64) int64 { return int64(n * dayMs) }

// sets groups decisions as "action/reason" -> sorted run ids.
func sets(ds []Decision) map[string][]string {
	m := map[string][]string{}
	for _, d := range ds {
		k := d.Action + "/" + d.Reason
		m[k] = append(m[k], d.RunID)
	}
	for _, ids := range m {
		slices.Sort(ids)
	}
	return m
}

func ids(prefix string, from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, fmt.Sprintf("%s%02d", prefix, i))
	}
	return out
}

// mixed is 25 runs: r01 newest .. r25 oldest, one hour apart, with r21..r25
// more than 14 days old; 3 stuck (one of them resolved, so 2 exempt plus one
// judged normally), 1 live, 1 unreadable.
func mixed() []Summary {
	var rs []Summary
	for i := 1; i <= 25; i++ {
		age := days(0.5) + int64(i)*3_600_000
		if i > 20 {
			age = days(14) + int64(i)*3_600_000
		}
		rs = append(rs, run(fmt.Sprintf("r%02d", i), age))
	}
	rs[2].Status = "stuck"  // r03: stuck, new
	rs[23].Status = "stuck" // r24: stuck and old: kept however old
	rs[10].Status = "stuck" // r11: stuck but resolved: policy applies
	rs[10].Resolved = true
	rs[5].Live = true        // r06: live
	rs[5].Status = "running" // (a live run that ended counts: TestDecideCountsEndedLiveRuns)
	rs[4].Status = "running" // r05: says running, lock free: judged by age
	rs[24].Live = true       // r25: old and live: exempt
	rs[24].Status = "running"
	rs[7].Err = errors.New("run.json: bad") // r08: unreadable
	return rs
}

func TestDecideMixed(t *testing.T) {
	got := sets(Decide(Policy{KeepLast: 20, KeepDays: 14}, now, mixed()))
	want := map[string][]string{
		"exempt/stuck":      {"r03", "r24"},
		"exempt/active":     {"r06", "r25"},
		"exempt/unreadable": {"r08"},
		// 25 - 5 exempt = 20 counted; r21..r23 are old, so 17 remain fresh.
		"delete/older-than-days": {"r21", "r22", "r23"},
		"keep/within-last":       without(ids("r", 1, 20), "r03", "r06", "r08"),
	}
	check(t, got, want)

	// keep-last 10: the 10 newest non-exempt runs stay.
	got = sets(Decide(Policy{KeepLast: 10, KeepDays: 14}, now, mixed()))
	want["keep/within-last"] = []string{"r01", "r02", "r04", "r05", "r07", "r09", "r10", "r11", "r12", "r13"}
	want["delete/beyond-last"] = ids("r", 14, 20)
	check(t, got, want)
}

func without(all []string, drop ...string) []string {
	return slices.DeleteFunc(all, func(s string) bool { return slices.Contains(drop, s) })
}

func check(t *testing.T, got, want map[string][]string) {
	t.Helper()
	for k, w := range want {
		if !slices.Equal(got[k], w) {
			t.Errorf("%s: got %v, want %v", k, got[k], w)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected %s: %v", k, g)
		}
	}
}

func TestDecideBoundaries(t *testing.T) {
	p := Policy{KeepLast: 20, KeepDays: 14}
	exact := Decide(p, now, []Summary{run("exact", days(14)), run("over", days(14)+1), run("under", days(14)-1)})
	for _, d := range exact {
		want := map[string]string{"exact": ReasonWithinLast, "under": ReasonWithinLast, "over": ReasonOlder}[d.RunID]
		if d.Reason != want {
			t.Errorf("%s: reason %s, want %s", d.RunID, d.Reason, want)
		}
	}
	if *exact[0].AgeDays != 14 {
		t.Errorf("age_days of exactly 14 days: %v", *exact[0].AgeDays)
	}

	// updated_at ahead of the clock (it went back since): not a negative
	// age, nor -0 for a millisecond ahead
	ahead := Decide(p, now, []Summary{run("days", -days(2)), run("ms", -1)})
	for _, d := range ahead {
		if b, _ := json.Marshal(d.AgeDays); string(b) != "0" {
			t.Errorf("%s ahead of the clock: age_days %s", d.RunID, b)
		}
	}

	for _, n := range []int{20, 21} {
		var rs []Summary
		for i := 1; i <= n; i++ {
			rs = append(rs, run(fmt.Sprintf("r%02d", i), int64(i)*1000))
		}
		got := sets(Decide(p, now, rs))
		if len(got["keep/within-last"]) != 20 {
			t.Errorf("%d runs: kept %d, want 20", n, len(got["keep/within-last"]))
		}
		if n == 21 && !slices.Equal(got["delete/beyond-last"], []string{"r21"}) {
			t.Errorf("21 runs: deleted %v, want the oldest, r21", got["delete/beyond-last"])
		}
		if n == 20 && len(got["delete/beyond-last"]) != 0 {
			t.Errorf("exactly 20 runs: deleted %v", got["delete/beyond-last"])
		}
	}
}

func TestDecideLimits(t *testing.T) {
	rs := []Summary{run("a", days(100)), run("b", days(1)), run("c", days(2)), run("d", days(20))}
	// keep-last larger than the store: only age deletes.
	check(t, sets(Decide(Policy{KeepLast: 1000, KeepDays: 14}, now, rs)), map[string][]string{
		"keep/within-last": {"b", "c"}, "delete/older-than-days": {"a", "d"},
	})
	// both limits off: everything is kept.
	check(t, sets(Decide(Policy{}, now, rs)), map[string][]string{"keep/within-last": {"a", "b", "c", "d"}})
	// age off: the newest N by updated_at, whatever their ids.
	check(t, sets(Decide(Policy{KeepLast: 2}, now, rs)), map[string][]string{
		"keep/within-last": {"b", "c"}, "delete/beyond-last": {"a", "d"},
	})
	// ties on updated_at: the later id is the newer run.
	tie := []Summary{run("x1", 5), run("x2", 5), run("x3", 5)}
	check(t, sets(Decide(Policy{KeepLast: 1}, now, tie)), map[string][]string{
		"keep/within-last": {"x3"}, "delete/beyond-last": {"x1", "x2"},
	})
}

// The decisions must not depend on the input order (keep-last has shipped
// inverted in other tools); the output keeps the input's order.
func TestDecideOrderIndependent(t *testing.T) {
	base := mixed()
	p := Policy{KeepLast: 7, KeepDays: 14}
	want := sets(Decide(p, now, base))
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 50; i++ {
		rs := slices.Clone(base)
		r.Shuffle(len(rs), func(a, b int) { rs[a], rs[b] = rs[b], rs[a] })
		ds := Decide(p, now, rs)
		for j := range ds {
			if ds[j].RunID != rs[j].RunID {
				t.Fatalf("output order differs from input at %d", j)
			}
		}
		check(t, sets(ds), want)
	}
	if len(want["keep/within-last"]) != 7 || !slices.Contains(want["keep/within-last"], "r01") {
		t.Errorf("keep-last 7 kept %v", want["keep/within-last"])
	}
}

func TestDecideUnreadableHasNoAge(t *testing.T) {
	d := Decide(Policy{KeepLast: 1}, now, []Summary{{RunID: "u", Err: errors.New("run.json is missing")}})[0]
	if d.Action != Exempt || d.AgeDays != nil || d.Error == "" {
		t.Errorf("unreadable: %+v", d)
	}
}

func TestDecidePausedIsExempt(t *testing.T) {
	paused, old := run("paused", days(100)), run("old", days(100))
	paused.Status = "paused"
	got := sets(Decide(Policy{KeepLast: 1, KeepDays: 14}, now, []Summary{paused, old}))
	check(t, got, map[string][]string{"exempt/paused": {"paused"}, "delete/older-than-days": {"old"}})
}

// A run that has ended may still be live (its driver holds it while it
// finishes), yet it counts among the kept: 20 runs stay, not 21. With
// concurrent drivers that is true of another driver's run too, so two
// loops that end together leave 20 runs, not 22.
func TestDecideCountsEndedLiveRuns(t *testing.T) {
	var runs []Summary
	for i := range 22 {
		runs = append(runs, Summary{RunID: fmt.Sprintf("r%02d", i), Status: record.RunCompleted, UpdatedAt: int64(1000 + i)})
	}
	runs[20].Live = true // another driver's run, just ended
	runs[21].Live = true // the run whose end triggers the clean
	runs[21].Status = record.RunFailed
	count := func(ds []Decision) (keep, del int) {
		for _, d := range ds {
			switch d.Action {
			case Keep, Exempt:
				keep++
			case Delete:
				del++
			}
		}
		return
	}
	ds := Decide(Policy{KeepLast: 20}, 2000, runs)
	if k, d := count(ds); k != 20 || d != 2 || ds[0].Action != Delete || ds[1].Action != Delete || ds[20].Action != Keep || ds[21].Action != Keep {
		t.Errorf("kept %d, deleted %d (%v, %v, %v); want 20, 2: the two oldest go", k, d, ds[0], ds[1], ds[21])
	}
	runs[20].Status = record.RunRunning // a live run that has not ended is never counted
	if k, _ := count(Decide(Policy{KeepLast: 20}, 2000, runs)); k != 21 {
		t.Errorf("a running run was counted")
	}
}
