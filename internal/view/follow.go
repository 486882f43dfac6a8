package view

import (
	"context"
	"errors"
	"fmt"
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
	w := &RunWatch{St: f.St, ID: f.RunID}
	for {
		var done bool
		var undriven error
		if f.UntilDone {
			_, done, undriven = w.Poll()
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

// Watch is what a follower of a run (tail, events --follow, logs --follow
// --until-done) learns from its run.json at each poll. ri is nil while the
// run has no run.json yet, or while a driver still holds a run whose
// run.json is damaged (it writes the file whole at its next change). done
// is set once the run has ended (err nil), is not driven (*Undriven,
// unless keepUndriven), or has a damaged run.json nothing will write again
// (that error). Read it before the follower's last read: what was written
// before the end is then read.
func Watch(st *store.Store, id string, keepUndriven bool) (ri *RunInfo, done bool, err error) {
	r, err := LoadRun(st, id)
	switch {
	case errors.Is(err, store.ErrNoSuchRun):
		return nil, false, nil
	case err != nil:
		if st.Held(id) {
			return nil, false, nil
		}
		return nil, true, err
	case record.Terminal(r.Run.Status):
		return &r, true, nil
	}
	if u := r.Undriven(); u != nil && !keepUndriven {
		return &r, true, u
	}
	return &r, false, nil
}

// RunWatch is Watch across a follower's polls. A run it has seen that is
// gone at a later poll was deleted (loop-clean, by hand) and will not come
// back: done, with *Deleted, where Watch alone would wait for ever, as for
// a run not there yet.
type RunWatch struct {
	St           *store.Store
	ID           string
	KeepUndriven bool
	seen         bool
}

// Poll is Watch, once the run was seen ending with *Deleted when it is gone.
func (w *RunWatch) Poll() (ri *RunInfo, done bool, err error) {
	ri, done, err = Watch(w.St, w.ID, w.KeepUndriven)
	if ri != nil || done || !errors.Is(w.St.FindRun(w.ID), store.ErrNoSuchRun) {
		w.seen = true
		return ri, done, err
	}
	if w.seen {
		return nil, true, &Deleted{ID: w.ID, Store: w.St.Root}
	}
	return nil, false, nil
}

// Deleted ends a follower whose run was deleted while it followed it.
type Deleted struct{ ID, Store string }

func (e *Deleted) Error() string {
	return fmt.Sprintf("run %s was deleted from store %s while followed (loop-clean, or by hand): nothing more comes", e.ID, e.Store)
}
