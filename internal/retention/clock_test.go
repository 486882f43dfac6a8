package retention

import (
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// A run made while the clock was not yet set (a board without a real-time
// clock boots in 1970 until NTP is reached) is created just after the
// newest run (store.CreationTime) but updated at the clock's time. Once
// the clock is set, it is neither older than keep_days nor the oldest for
// keep_last: it was the last run made. Before, it was deleted at once.
func TestRunMadeBeforeClockWasSet(t *testing.T) {
	st := newStore(t)
	now := time.Now()
	made := now.Add(-2 * time.Hour)
	older := store.NewRunID("older", made.Add(-time.Hour))
	r := store.NewRun(older, "older", made.Add(-time.Hour).UnixMilli())
	r.Status = record.RunCompleted
	if err := st.CreateRun(r); err != nil {
		t.Fatal(err)
	}
	boot := time.Unix(75, 0)
	at := st.CreationTime(boot)
	id := store.NewRunID("offline", at)
	r = store.NewRun(id, "offline", at.UnixMilli())
	r.Status, r.UpdatedAt = record.RunCompleted, boot.Add(time.Minute).UnixMilli()
	if err := st.CreateRun(r); err != nil {
		t.Fatal(err)
	}
	sums, err := Summarize(st)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range Decide(Policy{KeepLast: 1, KeepDays: 14}, now.UnixMilli(), sums) {
		if want := map[bool]string{true: Keep, false: Delete}[d.RunID == id]; d.Action != want {
			t.Errorf("%s: %s (%s), want %s", d.RunID, d.Action, d.Reason, want)
		}
	}
}
