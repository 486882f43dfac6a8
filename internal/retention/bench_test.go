package retention

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// fillStore writes n runs as loop-record leaves them (run.json, live.lock,
// a log), without fsync so that setting up 10,000 runs stays quick.
func fillStore(b *testing.B, n int) *store.Store {
	st := newStore(b)
	now := time.Now()
	for i := range n {
		id := fmt.Sprintf("20261123-000000-%05d", i)
		if err := os.Mkdir(st.RunDir(id), store.DirMode); err != nil {
			b.Fatal(err)
		}
		r := store.NewRun(id, id, now.Add(-time.Duration(i)*time.Minute).UnixMilli())
		if i%50 == 0 {
			r.Status = "stuck"
		}
		data, err := record.MarshalIndent(r)
		if err != nil {
			b.Fatal(err)
		}
		os.WriteFile(st.RunPath(id, store.RunFile), data, store.FileMode)
		os.WriteFile(st.RunPath(id, store.LiveLock), nil, store.FileMode)
		os.WriteFile(st.RunPath(id, store.IterationsFile), []byte(`{"iteration":1}`+"\n"), store.FileMode)
	}
	return st
}

// BenchmarkDecide10k is the pure policy over 10,000 summaries.
func BenchmarkDecide10k(b *testing.B) {
	var runs []Summary
	for i := range 10000 {
		runs = append(runs, run(fmt.Sprintf("r%05d", i), int64(i)*60_000))
	}
	for b.Loop() {
		Decide(defaults, now, runs)
	}
}

// BenchmarkDryRun10k is a whole dry run of a 10,000-run store: list runs/,
// read every run.json, try every live lock, decide (the issue's < 1 s).
func BenchmarkDryRun10k(b *testing.B) {
	st := fillStore(b, 10000)
	o := Options{Policy: defaults, DryRun: true, Now: time.Now(), Log: quietLog()}
	for b.Loop() {
		n := 0
		if _, err := Clean(st, o, func(Decision) error { n++; return nil }); err != nil || n != 10000 {
			b.Fatalf("%d decisions, %v", n, err)
		}
	}
}

// BenchmarkDecideStore10k is deciding alone: both limits off, so no run is
// sized; the cost is reading 10,000 run.json files and trying their locks.
func BenchmarkDecideStore10k(b *testing.B) {
	st := fillStore(b, 10000)
	o := Options{DryRun: true, Now: time.Now(), Log: quietLog()}
	for b.Loop() {
		if _, err := Clean(st, o, nil); err != nil {
			b.Fatal(err)
		}
	}
}
