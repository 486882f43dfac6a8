package recorder

import (
	"testing"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

const (
	stepLine   = `{"type":"step","command":"agent","exit_code":0,"cost_usd":1}`
	reviewLine = `{"type":"step","command":"reviewer","phase":"review","exit_code":0,"cost_usd":0.25,"final_message":"<review>CHANGES: x</review>","review_verdict":"changes","review_notes":"x"}`
	valLine    = `{"type":"validation","command":"true","exit_code":0}`
)

func decode(t *testing.T, lines ...string) *record.Input {
	t.Helper()
	data := ""
	for _, l := range lines {
		data += l + "\n"
	}
	in, err := record.DecodeInput([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// The review is committed as a reviewer attempt of the iteration it
// reviewed, just before that iteration, whose record carries the verdict;
// the cost of both is in the run's totals.
func TestRecordReview(t *testing.T) {
	r := newRecorder(t)
	if _, err := r.Record("x", decode(t, stepLine, valLine), 0); err != nil {
		t.Fatal(err)
	}
	res, err := r.Record("x", decode(t, stepLine, reviewLine, valLine), 2)
	if err != nil {
		t.Fatal(err)
	}
	if rv := res.Log.Review; rv == nil || rv.Verdict != "changes" || rv.Notes != "x" || rv.Attempt != 1 {
		t.Fatalf("review = %+v", res.Log.Review)
	}
	as, err := r.St.ReadAttempts("x")
	if err != nil || len(as) != 1 || as[0].Kind != record.AttemptReviewer || as[0].Iteration != 2 {
		t.Fatalf("attempts = %+v, %v", as, err)
	}
	run, _ := r.St.ReadRun("x")
	if run.TotalCostUSD == nil || *run.TotalCostUSD != 2.25 || run.Attempts != 1 {
		t.Fatalf("totals: cost %v, attempts %d", run.TotalCostUSD, run.Attempts)
	}
}

// A writer killed after the attempt's commit and before the iteration's
// leaves the attempt; the same input again finds it instead of adding a
// second one, and the totals count it once.
func TestRecordReviewAfterCrash(t *testing.T) {
	r := newRecorder(t)
	if _, err := r.RecordAttempt("x", decode(t, reviewLine), record.AttemptReviewer); err != nil {
		t.Fatal(err)
	}
	res, err := r.Record("x", decode(t, stepLine, reviewLine, valLine), 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Log.Review == nil || res.Log.Review.Attempt != 1 {
		t.Fatalf("review = %+v", res.Log.Review)
	}
	if n := count(t, r.St.RunPath("x", store.AttemptsFile), "\n"); n != 1 {
		t.Fatalf("%d attempts, want 1", n)
	}
	run, _ := r.St.ReadRun("x")
	if run.TotalCostUSD == nil || *run.TotalCostUSD != 1.25 {
		t.Fatalf("total cost %v, want 1.25", run.TotalCostUSD)
	}
}
