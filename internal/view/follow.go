package view

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// Follow prints iterations as they are committed, like tail -F: it polls the
// log's size and identity, so it works before the run exists, across appends
// by other processes, and when the log is replaced (read again from the
// start). It stops when ctx is done, or with UntilDone once the run's status
// is terminal and every line committed before that has been shown (or the
// run is no longer driven: *Undriven).
type Follow struct {
	St        *store.Store
	RunID     string
	Query     *Query
	Emit      func(*Record) error
	Flush     func() error
	UntilDone bool
	Interval  time.Duration
	Warn      func(msg string)
}

// Run follows from a committed offset of the log (lineNo lines before it,
// or -1 when unknown).
func (f *Follow) Run(ctx context.Context, off int64, lineNo int) error {
	path := f.St.RunPath(f.RunID, store.IterationsFile)
	var last os.FileInfo
	for {
		var done bool
		var undriven error
		if f.UntilDone {
			done, undriven = f.ended()
		}
		fi, err := os.Stat(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return err
		default:
			if last != nil && !os.SameFile(last, fi) || fi.Size() < off {
				if off > 0 {
					f.Warn("iterations.jsonl was replaced or cut; reading it from the start")
				}
				off, lineNo = 0, 0
			}
			last = fi
			if fi.Size() > off {
				if off, lineNo, err = f.read(path, off, lineNo); err != nil {
					return err
				}
			}
		}
		if err := f.Flush(); err != nil {
			return err
		}
		if done {
			return undriven
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(f.Interval):
		}
	}
}

func (f *Follow) read(path string, off int64, lineNo int) (int64, int, error) {
	base := max(lineNo, 0)
	end, n, err := f.Query.From(path, off, base, func(rec *Record) error {
		if lineNo < 0 {
			rec.Line = 0 // numbering unknown after a backward read
		}
		return f.Emit(rec)
	})
	if lineNo < 0 {
		return end, -1, err
	}
	return end, n, err
}

// ended reads the run's status; a run that does not exist yet has not ended.
// A run no driver drives (paused, interrupted) ends the follow too, with
// an *Undriven.
func (f *Follow) ended() (bool, error) {
	ri, err := LoadRun(f.St, f.RunID)
	if err != nil {
		return false, nil
	}
	if u := ri.Undriven(); u != nil {
		return true, u
	}
	return record.Terminal(ri.Run.Status), nil
}
