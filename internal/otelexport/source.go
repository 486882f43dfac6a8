package otelexport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// StoreRun sends what a run holds beyond its marks: new iterations and
// attempts, and the root span once the run has ended (or, with final, in
// any state). After each delivery it calls sent with the marks reached,
// for the caller's checkpoint; memory stays bounded by flushing as it goes.
func (s *Session) StoreRun(ctx context.Context, st *store.Store, id string, m RunMarks, final bool, sent func(RunMarks) error) error {
	m, err := s.storeRun(ctx, st, id, m, final, sent)
	if err == nil {
		err = s.deliver(ctx, m, sent)
	}
	if err != nil {
		// Kept, they went out with the next run's delivery, and again
		// once this run's marks, which never moved, had them mapped anew.
		s.out.drop()
	}
	return err
}

// deliver flushes the spans made so far and reports the marks they reach.
func (s *Session) deliver(ctx context.Context, m RunMarks, sent func(RunMarks) error) error {
	if err := s.Flush(ctx); err != nil {
		return err
	}
	return sent(m)
}

// flushAt is how many pending spans make StoreRun deliver mid-run.
const flushAt = 4 * batchSpans

func (s *Session) storeRun(ctx context.Context, st *store.Store, id string, m RunMarks, final bool, sent func(RunMarks) error) (RunMarks, error) {
	meta, err := st.ReadRun(id)
	if err != nil {
		return m, err
	}
	r := Run{ID: id, CreatedAt: meta.CreatedAt, Meta: meta}
	last := meta.CreatedAt
	err = scanRecords(st.RunPath(id, store.IterationsFile), func(line []byte) error {
		var it record.IterationLog
		if err := json.Unmarshal(line, &it); err != nil {
			return err
		}
		last = max(last, it.CreatedAt)
		if it.Iteration > m.Iteration {
			s.Mapper.IterationSpans(r, &it)
			m.Iteration = it.Iteration
			if s.Pending() >= flushAt {
				return s.deliver(ctx, m, sent)
			}
		}
		return nil
	})
	if err != nil {
		return m, fmt.Errorf("%s: %w", store.IterationsFile, err)
	}
	err = scanRecords(st.RunPath(id, store.AttemptsFile), func(line []byte) error {
		var at record.Attempt
		if err := json.Unmarshal(line, &at); err != nil {
			return err
		}
		if at.Attempt > m.Attempt {
			s.Mapper.AttemptSpan(r, &at)
			m.Attempt = at.Attempt
			if s.Pending() >= flushAt {
				return s.deliver(ctx, m, sent)
			}
		}
		return nil
	})
	if err != nil {
		return m, fmt.Errorf("%s: %w", store.AttemptsFile, err)
	}
	if ended := record.Terminal(meta.Status); (ended || final) && m.Root != meta.Status {
		err = scanRecords(st.RunPath(id, store.EventsFile), func(line []byte) error {
			var e record.Event
			if err := json.Unmarshal(line, &e); err != nil {
				return err
			}
			r.AddEvent(e)
			return nil
		})
		if err != nil {
			return m, fmt.Errorf("%s: %w", store.EventsFile, err)
		}
		s.Mapper.RunSpan(r, last)
		m.Root = meta.Status
	}
	return m, nil
}

// scanRecords calls fn for each committed line of an NDJSON file of the
// run; a missing file has none.
func scanRecords(path string, fn func(line []byte) error) error {
	return store.ScanFile(path, func(n int, line []byte) error {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			return nil
		}
		if err := fn(line); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		return nil
	})
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
	RunCreatedAt int64            `json:"run_created_at"`
}

// Add maps one record; a line that is none of the three is an error.
func (st *Stream) Add(line []byte) error {
	var p probe
	if err := json.Unmarshal(line, &p); err != nil {
		return err
	}
	if p.RunID == "" {
		return fmt.Errorf("no run_id: not an IterationLog, attempt or event")
	}
	r := st.run(p.RunID)
	switch {
	case p.Attempt != nil:
		var at record.Attempt
		if err := json.Unmarshal(line, &at); err != nil {
			return err
		}
		st.s.Mapper.AttemptSpan(*r, &at)
	case p.Validation != nil && p.Iteration != nil:
		var it record.IterationLog
		if err := json.Unmarshal(line, &it); err != nil {
			return err
		}
		if r.CreatedAt == 0 {
			r.CreatedAt = it.RunCreatedAt
		}
		st.last[p.RunID] = max(st.last[p.RunID], it.CreatedAt)
		st.s.Mapper.IterationSpans(*r, &it)
	case p.Type != nil && p.TS != nil:
		var e record.Event
		if err := json.Unmarshal(line, &e); err != nil {
			return err
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
