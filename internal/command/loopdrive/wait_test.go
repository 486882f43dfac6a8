package loopdrive

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/testsupport/storetest"
)

// TestWaitEndsAfterSleepThroughReset: a laptop that slept through a rate
// limit's reset (its wall clock moved on hours, the timer's monotonic
// clock did not) goes on when it wakes rather than waiting the hour again.
func TestWaitEndsAfterSleepThroughReset(t *testing.T) {
	st := storetest.Driven(t, record.RunRunning)
	var calls atomic.Int64
	wallNow = func() time.Time { // the first reading starts the wait; then it has slept 2h
		if calls.Add(1) == 1 {
			return time.Now()
		}
		return time.Now().Add(2 * time.Hour)
	}
	t.Cleanup(func() { wallNow = time.Now })
	done := make(chan error, 1)
	go func() { done <- waitRun(nil, st, "r", 3600) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("an hour's wait went on after the wall clock passed its end")
	}
}

// TestWaitSecondsBounded: --seconds past what a timer holds waits the
// longest wait, not a wrapped-around one that ends before its first poll.
func TestWaitSecondsBounded(t *testing.T) {
	st := storetest.Driven(t, record.RunRunning)
	var calls atomic.Int64
	wallNow = func() time.Time { // at the first poll, past the longest wait
		if calls.Add(1) == 1 {
			return time.Now()
		}
		return time.Now().Add(40 * 24 * time.Hour)
	}
	t.Cleanup(func() { wallNow = time.Now })
	done := make(chan error, 1)
	go func() { done <- waitRun(nil, st, "r", 1e300) }()
	select {
	case <-done:
		if calls.Load() < 2 {
			t.Fatal("a wait of 1e300 seconds ended before its first poll")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the wait did not end past its longest")
	}
}
