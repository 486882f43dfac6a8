// Package loopkit reads a loopkit store: the runs under a .loop directory,
// their iterations as they are committed, and their events. It is
// read-only: it never creates, repairs or changes anything, in the store or
// outside it, and holds no lock (Interrupted tries the driver's for an
// instant), so it is safe to use while drivers write the store.
//
// The record types are the store's own (docs/records.md in the loopkit
// repository lists every field); they are aliases, so a new field of the
// store shows here at once. Everything else of loopkit stays internal.
package loopkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
)

// IterationLog is one committed iteration: a line of iterations.jsonl.
type IterationLog = record.IterationLog

// ValidationResult is what loop-validate prints: one run of the validation
// command (an IterationLog carries its outcome inline).
type ValidationResult = record.Validation

// Run is a run's run.json: RunID, Name, Status, totals and settings.
type Run = record.Run

// Event is one line of a run's events.jsonl.
type Event = record.Event

// The types of the records' fields, named here so that a program can
// declare them (a func taking an IterationLog's Agent); they are the
// store's own too.
type (
	// Agent is an IterationLog's agent step (IterationLog.Agent).
	Agent = record.Agent
	// Failure is a failing test the validation output named.
	Failure = record.Failure
	// ToolCall is one tool call of an agent step.
	ToolCall = record.ToolCall
	// Review is a reviewer's verdict on an iteration's step.
	Review = record.Review
	// Settings are a run's settings (Run.Settings), as its driver fixed them.
	Settings = runconfig.Settings
	// Duration is a duration setting; D() is its time.Duration.
	Duration = runconfig.Duration
	// Totals are a run's token, cost and duration sums (Run.Totals()).
	Totals = record.Totals
	// Watchdog is the watchdog's part of run.json (Run.Watchdog).
	Watchdog = record.Watchdog
	// WatchdogSignal is one signal the watchdog fired (Watchdog.Fired).
	WatchdogSignal = record.Signal
	// Merge is the merge of a worktree run's branch (Run.Merge).
	Merge = record.Merge
)

// Run statuses (Run.Status).
const (
	StatusRunning   = record.RunRunning
	StatusQueued    = record.RunQueued
	StatusPaused    = record.RunPaused
	StatusCompleted = record.RunCompleted
	StatusFailed    = record.RunFailed
	StatusStuck     = record.RunStuck
	StatusCanceled  = record.RunCanceled
)

// Terminal reports whether a run status ends the run (completed, failed,
// stuck or canceled): nothing more is appended to its iterations.
func Terminal(status string) bool { return record.Terminal(status) }

// ErrNoSuchRun is returned (wrapped) for a run the store does not hold;
// the error names the run and the store.
var ErrNoSuchRun = store.ErrNoSuchRun

// Store is an open loopkit store: one that Open returned (the methods of
// any other, a zero Store or nil, return an error). Its methods may be
// called from many goroutines at once.
type Store struct {
	st *store.Store
	// PollInterval is how often Follow looks for new iterations
	// (default 200ms).
	PollInterval time.Duration
}

// Open opens the store at storeDir, the .loop directory (not the
// workspace). It creates nothing; a directory that is missing, or whose
// runs/ is not a real directory, is an error, as is a workspace (a
// directory without runs/ whose .loop has them): the error names its
// store. A store with no run yet is empty.
func Open(storeDir string) (*Store, error) {
	st, err := store.Open(storeDir)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(st.Root)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", storeDir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("open store %s: not a directory", storeDir)
	}
	// a workspace has its runs in .loop: read as a store, it would show none
	if _, err := os.Lstat(st.RunsDir()); errors.Is(err, os.ErrNotExist) {
		inner := filepath.Join(st.Root, ".loop")
		if fi, err := os.Stat(filepath.Join(inner, "runs")); err == nil && fi.IsDir() {
			return nil, fmt.Errorf("open store %s: a workspace, not a store: open %s", storeDir, inner)
		}
	}
	return &Store{st: st, PollInterval: 200 * time.Millisecond}, nil
}

// errNotOpen is the error of every method of a Store that Open did not
// return (a zero Store, or nil): there is no store to read.
var errNotOpen = errors.New("loopkit: the Store was not opened: use loopkit.Open(storeDir)")

func (s *Store) store() (*store.Store, error) {
	if s == nil || s.st == nil {
		return nil, errNotOpen
	}
	return s.st, nil
}

// Root is the store's directory, absolute and with symlinks resolved ("" for
// a Store that Open did not return).
func (s *Store) Root() string {
	if s == nil || s.st == nil {
		return ""
	}
	return s.st.Root
}

// RunError is the error for one run that Runs left out: its run.json
// could not be read (damaged, edited, or not a regular file).
type RunError struct {
	RunID string
	Err   error
}

func (e *RunError) Error() string { return "run " + e.RunID + " left out: " + e.Err.Error() }

func (e *RunError) Unwrap() error { return e.Err }

// Runs returns every run of the store, newest first (by created_at, then
// by id). A run deleted while it is listed is left out. So is a run whose
// run.json cannot be read, as loop-view runs leaves it out: Runs returns
// the others all the same, with an error joining a *RunError for each run
// left out (errors.As finds one), so that one damaged run never hides the
// rest. When the store itself cannot be listed, the runs are nil.
func (s *Store) Runs() ([]Run, error) {
	st, err := s.store()
	if err != nil {
		return nil, err
	}
	ids, err := st.RunIDs()
	if err != nil {
		return nil, err
	}
	runs := make([]Run, 0, len(ids))
	var bad []error
	for _, id := range ids {
		r, err := st.ReadRun(id)
		if errors.Is(err, store.ErrNoSuchRun) {
			continue
		}
		if err != nil {
			bad = append(bad, &RunError{RunID: id, Err: err})
			continue
		}
		runs = append(runs, *r)
	}
	sort.SliceStable(runs, func(i, j int) bool {
		if runs[i].CreatedAt != runs[j].CreatedAt {
			return runs[i].CreatedAt > runs[j].CreatedAt
		}
		return runs[i].RunID > runs[j].RunID
	})
	return runs, errors.Join(bad...)
}

// Run returns one run's run.json.
func (s *Store) Run(runID string) (*Run, error) {
	st, err := s.store()
	if err != nil {
		return nil, err
	}
	r, err := st.ReadRun(runID)
	if errors.Is(err, ErrNoSuchRun) {
		// a program may read several stores: say which one lacks it
		err = fmt.Errorf("%w (store %s)", err, st.Root)
	}
	return r, err
}

// Interrupted reports whether the run is marked running while no driver
// holds it: its driver was killed before it could mark the run, and
// `loop resume` goes on with it (Follow waits for that, or for a cancel).
// A run made by pipeline commands, with no driver, never is.
func (s *Store) Interrupted(runID string) (bool, error) {
	r, err := s.Run(runID)
	if err != nil {
		return false, err
	}
	return s.st.Interrupted(r), nil
}

// Iterations returns the run's committed iterations in order (1, 2, ...).
// A line being written, or one out of sequence, is no commit and is not
// returned.
func (s *Store) Iterations(runID string) ([]IterationLog, error) {
	if _, err := s.Run(runID); err != nil {
		return nil, err
	}
	var out []IterationLog
	_, err := s.scanIterations(runID, 0, &out, func(it IterationLog) error {
		out = append(out, it)
		return nil
	})
	return out, err
}

// Events returns the run's events in the order they were appended.
func (s *Store) Events(runID string) ([]Event, error) {
	if _, err := s.Run(runID); err != nil {
		return nil, err
	}
	var out []Event
	err := store.ScanFile(s.st.RunPath(runID, store.EventsFile), func(n int, line []byte) error {
		var e Event
		if err := json.Unmarshal(line, &e); err != nil {
			return fmt.Errorf("run %s: %s line %d: %w", runID, store.EventsFile, n, err)
		}
		out = append(out, e)
		return nil
	})
	return out, err
}

// Follow calls fn with each of the run's iterations, from the first, and
// then with each new one as it is committed, like tail -f. It returns nil
// once the run has ended (a terminal status) and every iteration committed
// before has been passed to fn; ctx's error when ctx is done first (fn is
// not called again once it is); fn's error as soon as fn returns one. A
// paused or interrupted run has not ended: Follow waits for its resume.
func (s *Store) Follow(ctx context.Context, runID string, fn func(IterationLog) error) error {
	if _, err := s.Run(runID); err != nil {
		return err
	}
	interval := s.PollInterval
	if interval <= 0 {
		interval = 200 * time.Millisecond
	}
	var off int64
	var seen []IterationLog // the last one decides what follows in sequence
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		// read the status first: every line committed before it ended is
		// then read by the scan below
		r, err := s.Run(runID)
		if err != nil {
			return err
		}
		off, err = s.scanIterations(runID, off, &seen, func(it IterationLog) error {
			// a cancel stops a long catch-up too, not only the wait
			if err := ctx.Err(); err != nil {
				return err
			}
			seen = append(seen[:0], it)
			return fn(it)
		})
		if err != nil {
			return err
		}
		if Terminal(r.Status) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}
}

// scanIterations reads iterations.jsonl from off and passes on the lines
// that follow *last in sequence; it returns the offset after the last line
// it passed on, so a line out of sequence is read again (and still
// refused) rather than skipped.
func (s *Store) scanIterations(runID string, off int64, last *[]IterationLog, fn func(IterationLog) error) (int64, error) {
	errStop := errors.New("stop")
	end := off
	_, _, err := store.ScanFrom(s.st.RunPath(runID, store.IterationsFile), off, 0, func(n int, at int64, line []byte) error {
		var it IterationLog
		if err := json.Unmarshal(line, &it); err != nil {
			return fmt.Errorf("run %s: %s: a damaged line at byte %d: %w", runID, store.IterationsFile, at, err)
		}
		want := 1
		if k := len(*last); k > 0 {
			want = (*last)[k-1].Iteration + 1
		}
		if it.Iteration != want {
			return errStop
		}
		if err := fn(it); err != nil {
			return err
		}
		end = at + int64(len(line)) + 1
		return nil
	})
	if errors.Is(err, errStop) {
		err = nil
	}
	return end, err
}
