package otelexport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loopkit/loopkit/internal/quote"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// StoreRun sends what a run holds beyond its marks: new iterations and
// attempts, and the root span once the run has ended (or, with final, in
// any state). After each delivery it calls sent with the marks reached,
// for the caller's checkpoint; memory stays bounded by flushing as it goes.
func (s *Session) StoreRun(ctx context.Context, st *store.Store, id string, m RunMarks, final bool, sent func(RunMarks) error) error {
	m, t, err := s.storeRun(ctx, st, id, m, final, sent)
	if err == nil {
		err = s.deliver(ctx, m, sent)
	}
	if err == nil {
		t.marks = m
		s.keepTail(id, t)
	}
	if err != nil {
		// Kept, they went out with the next run's delivery, and again
		// once this run's marks, which never moved, had them mapped anew.
		s.out.drop()
	}
	return err
}

// deliver flushes the spans made so far and reports the marks they reach;
// when a batch fails, the marks that the batches before it reached, so
// that they are not sent again.
func (s *Session) deliver(ctx context.Context, m RunMarks, sent func(RunMarks) error) error {
	reached, err := s.flush(ctx)
	if err != nil {
		if reached != nil {
			if serr := sent(*reached); serr != nil {
				return quote.Errors([]error{err, serr})
			}
		}
		return err
	}
	return sent(m)
}

// deliverMid is deliver from within a scan of records, its error marked
// as the delivery's: not the record's fault, so named by neither the file
// nor the line (it read "iterations.jsonl: line 410: ...: 400 Bad Request").
func (s *Session) deliverMid(ctx context.Context, m RunMarks, sent func(RunMarks) error) error {
	if err := s.deliver(ctx, m, sent); err != nil {
		return delivered{err}
	}
	return nil
}

type delivered struct{ err error }

func (d delivered) Error() string { return d.err.Error() }

// inFile names the file a scan's error came from, unless a delivery failed.
func inFile(name string, err error) error {
	if d, ok := err.(delivered); ok {
		return d.err
	}
	return &RunFault{Err: fmt.Errorf("%s: %w", name, err)}
}

// flushAt is how many pending spans make StoreRun deliver mid-run.
const flushAt = 4 * batchSpans

func (s *Session) storeRun(ctx context.Context, st *store.Store, id string, m RunMarks, final bool, sent func(RunMarks) error) (RunMarks, runTail, error) {
	meta, err := st.ReadRun(id)
	if err != nil {
		return m, runTail{}, &RunFault{Err: err}
	}
	r := Run{ID: id, CreatedAt: meta.CreatedAt, Meta: meta}
	t := s.tail(id, m)
	t.iter, t.att = t.iter.still(st.RunPath(id, store.IterationsFile)), t.att.still(st.RunPath(id, store.AttemptsFile))
	last := meta.CreatedAt
	if t.iter.off > 0 {
		last = max(last, t.last)
	}
	t.iter, err = scanFrom(st.RunPath(id, store.IterationsFile), t.iter, func(line []byte) error {
		var it record.IterationLog
		if err := json.Unmarshal(line, &it); err != nil {
			return err
		}
		last = max(last, it.CreatedAt)
		if it.Iteration > m.Iteration {
			s.out.begin()
			s.Mapper.IterationSpans(r, &it)
			m.Iteration = it.Iteration
			s.out.reached(m)
			if s.Pending() >= flushAt {
				return s.deliverMid(ctx, m, sent)
			}
		}
		return nil
	})
	if err != nil {
		return m, t, inFile(store.IterationsFile, err)
	}
	t.last = last
	t.att, err = scanFrom(st.RunPath(id, store.AttemptsFile), t.att, func(line []byte) error {
		var at record.Attempt
		if err := json.Unmarshal(line, &at); err != nil {
			return err
		}
		if at.Attempt > m.Attempt {
			s.out.begin()
			s.Mapper.AttemptSpan(r, &at)
			m.Attempt = at.Attempt
			s.out.reached(m)
			if s.Pending() >= flushAt {
				return s.deliverMid(ctx, m, sent)
			}
		}
		return nil
	})
	if err != nil {
		return m, t, inFile(store.AttemptsFile, err)
	}
	// the root as sent, interrupted apart: sent again once its driver is
	// found gone, or the run goes on
	root := meta.Status
	ended := record.Terminal(meta.Status)
	if !ended && final && st.Interrupted(meta) {
		root = rootInterrupted
	}
	if (ended || final) && m.Root != root {
		err = scanRecords(st.RunPath(id, store.EventsFile), func(line []byte) error {
			var e record.Event
			if err := json.Unmarshal(line, &e); err != nil {
				return err
			}
			r.AddEvent(e)
			return nil
		})
		if err != nil {
			return m, t, fmt.Errorf("%s: %w", store.EventsFile, err)
		}
		r.Interrupted = root == rootInterrupted
		s.out.begin()
		s.Mapper.RunSpan(r, last)
		m.Root = root
		s.out.reached(m)
	}
	return m, t, nil
}

// rootInterrupted is RunMarks.Root for a root span sent as interrupted.
const rootInterrupted = "interrupted"

// scanRecords calls fn for each committed line of an NDJSON file of the
// run; a missing file has none.
func scanRecords(path string, fn func(line []byte) error) error {
	_, err := scanFrom(path, fileTail{}, fn)
	return err
}

// Stream maps records read one by one (IterationLogs, attempts and events
// as NDJSON, for example `loop-view logs R --json --follow`): iterations
// and attempts as they come, each run's root span at End.
type Stream struct {
	s    *Session
	runs map[string]*Run
	last map[string]int64
	ids  []string
}

// NewStream starts a stream of records into the session.
func (s *Session) NewStream() *Stream {
	return &Stream{s: s, runs: map[string]*Run{}, last: map[string]int64{}}
}

// probe holds the fields that tell the record kinds apart.
type probe struct {
	RunID        string           `json:"run_id"`
	Type         *string          `json:"type"`
	TS           *int64           `json:"ts"`
	Iteration    *int             `json:"iteration"`
	Attempt      *int             `json:"attempt"`
	Validation   *json.RawMessage `json:"validation_command"`
	ExitCode     *json.RawMessage `json:"exit_code"`
	RunCreatedAt int64            `json:"run_created_at"`
}

// Add maps one record; a line that is none of the three is an error.
func (st *Stream) Add(line []byte) error {
	var p probe
	if err := json.Unmarshal(line, &p); err != nil {
		return recordError(err)
	}
	if p.RunID == "" {
		return fmt.Errorf("no run_id: not an IterationLog, attempt or event")
	}
	r := st.run(p.RunID)
	switch {
	case p.Attempt != nil:
		var at record.Attempt
		if err := json.Unmarshal(line, &at); err != nil {
			return recordError(err)
		}
		st.s.Mapper.AttemptSpan(*r, &at)
	case p.Validation != nil && p.Iteration != nil && p.ExitCode != nil:
		// run.json (loop-view runs --json) has the first two but no exit code.
		var it record.IterationLog
		if err := json.Unmarshal(line, &it); err != nil {
			return recordError(err)
		}
		if r.CreatedAt == 0 {
			r.CreatedAt = it.RunCreatedAt
		}
		st.last[p.RunID] = max(st.last[p.RunID], it.CreatedAt)
		st.s.Mapper.IterationSpans(*r, &it)
	case p.Type != nil && p.TS != nil:
		var e record.Event
		if err := json.Unmarshal(line, &e); err != nil {
			return recordError(err)
		}
		if e.Type == record.EventRunCreated && r.CreatedAt == 0 {
			r.CreatedAt = e.TS
		}
		st.last[p.RunID] = max(st.last[p.RunID], e.TS)
		r.AddEvent(e)
	default:
		return fmt.Errorf("not an IterationLog, attempt or event")
	}
	return nil
}

// recordError is a record's decoding error in JSON's terms, without the
// Go types it was read into.
func recordError(err error) error {
	field, msg := record.JSONProblem(err)
	if field != "" {
		return fmt.Errorf("field %q: %s", field, msg)
	}
	return errors.New(msg)
}

func (st *Stream) run(id string) *Run {
	r := st.runs[id]
	if r == nil {
		r = &Run{ID: id}
		st.runs[id] = r
		st.ids = append(st.ids, id)
	}
	return r
}

// End maps the root span of every run seen, with the events read.
func (st *Stream) End() {
	for _, id := range st.ids {
		r := st.runs[id]
		st.s.Mapper.RunSpan(*r, st.last[id])
	}
}
