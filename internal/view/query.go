package view

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/loopkit/loopkit/internal/view/jsonobj"
)

// ErrNoSuchIteration is a requested iteration the run's log does not hold.
var ErrNoSuchIteration = errors.New("no such iteration")

// Record is one line of a log handed to a view: its stored bytes and, when
// a filter or transform needed them, its decoded fields.
type Record struct {
	Line   int // 0 when read backwards
	Offset int64
	Raw    []byte
	Value  any
}

// Filter is a compiled --where expression (a jqfilter.Filter). The views
// ask no more of it than this, so the commands that only format records
// (loop-record, loop-drive, loop-step) link no jq.
type Filter interface {
	Match(v any) (bool, error)
	// Needs are the top-level fields the filter reads; all: any of them.
	Needs() (fields map[string]bool, all bool)
	String() string // the option and expression, for messages
}

// Query selects the records of a log: all of them, one iteration, or the
// last N that pass every filter.
type Query struct {
	Filters []Filter
	// Need names fields the consumer wants decoded in Value (jq transform);
	// NeedAll decodes the whole record.
	Need    map[string]bool
	NeedAll bool
	Last    int
	// Iteration selects one iteration by number (0: all).
	Iteration int
	// OnError reports a record a filter failed on, or a line that is not a
	// JSON object; the scan goes on without it.
	OnError func(rec *Record, err error)
	// Valid passes on only lines that are whole JSON objects (for output
	// that copies them: --json); others go to OnError.
	Valid bool
	// Numbered: the log's iterations go up line by line (iterations.jsonl);
	// a line that repeats or goes back (copied or moved by hand) goes to
	// OnError.
	Numbered bool

	prevN    int             // Numbered: the last iteration passed on
	fields   map[string]bool // what decode reads, worked out once
	all, set bool
}

// decode gives the record the fields the filters and consumer need.
func (q *Query) decode(rec *Record) error {
	if !q.set {
		q.set, q.all, q.fields = true, q.NeedAll, map[string]bool{}
		for k := range q.Need {
			q.fields[k] = true
		}
		for _, f := range q.Filters {
			fields, all := f.Needs()
			q.all = q.all || all
			for k := range fields {
				q.fields[k] = true
			}
		}
	}
	var err error
	switch {
	case q.all:
		rec.Value, err = jsonobj.Full(rec.Raw)
	case len(q.fields) > 0 || len(q.Filters) > 0 || q.Need != nil:
		// an expression reading no field still sees an object, not null
		rec.Value, err = jsonobj.Project(rec.Raw, q.fields)
	}
	return err
}

// match decodes the record and runs the filters; a filter's runtime error
// is reported and the record skipped.
func (q *Query) match(rec *Record) (bool, error) {
	err := q.decode(rec)
	if err == nil && q.Valid && !isObject(rec.Raw) {
		err = errors.New("not a JSON object")
	}
	if err == nil && q.Numbered && rec.Line > 0 {
		// forward: each iteration after the one before (a damaged line
		// between them may leave a gap, never a step back or a repeat).
		// A line that is no record at all is said to be so, not taken
		// for a step back to iteration 0.
		switch n := Iteration(rec.Raw); {
		case n > q.prevN:
			q.prevN = n
		case !isObject(rec.Raw):
			err = errors.New("not a JSON object")
		case n <= 0:
			err = errors.New(`no "iteration" number`)
		default:
			err = fmt.Errorf("iteration %d after iteration %d: the log was edited by hand (a line copied or moved)", n, q.prevN)
		}
	}
	if err != nil {
		if q.OnError != nil {
			q.OnError(rec, &LineError{Line: rec.Line, Offset: rec.Offset, Err: err})
			return false, nil
		}
		return false, &LineError{Line: rec.Line, Offset: rec.Offset, Err: err}
	}
	for _, f := range q.Filters {
		ok, err := f.Match(rec.Value)
		if err != nil {
			if q.OnError != nil {
				q.OnError(rec, fmt.Errorf("%s: %w", f, err))
			}
			return false, nil
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}

// LineError is a stored line that is not a JSON object.
type LineError struct {
	Line   int
	Offset int64
	Err    error
}

func (e *LineError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %v", e.Line, e.Err)
	}
	return fmt.Sprintf("line at byte %d: %v", e.Offset, e.Err)
}

// Iteration reads the "iteration" field of a stored line (0 when absent).
func Iteration(raw []byte) int {
	m, err := jsonobj.Project(raw, map[string]bool{"iteration": true})
	if err != nil {
		return 0
	}
	var n int
	if num, ok := m["iteration"].(json.Number); ok {
		x, _ := num.Int64()
		n = int(x)
	}
	return n
}

// Run feeds the selected records of the log at path to fn, oldest first,
// and returns the offset and line count where the committed lines ended
// (for a follow that starts there). Only a plain scan counts lines.
func (q *Query) Run(path string, fn func(*Record) error) (int64, int, error) {
	switch {
	case q.Iteration > 0:
		return q.one(path, fn)
	case q.Last > 0:
		return q.last(path, fn)
	}
	return q.From(path, 0, 0, fn)
}

// From scans the log forward from a committed offset.
func (q *Query) From(path string, off int64, lineNo int, fn func(*Record) error) (int64, int, error) {
	return readFrom(path, off, lineNo, func(n int, o int64, line []byte) error {
		rec := &Record{Line: n, Offset: o, Raw: line}
		ok, err := q.match(rec)
		if err != nil || !ok {
			return err
		}
		return fn(rec)
	})
}

func (q *Query) last(path string, fn func(*Record) error) (int64, int, error) {
	var keep []*Record
	end, err := readBackward(path, func(o int64, line []byte) (bool, error) {
		rec := &Record{Offset: o, Raw: line}
		ok, err := q.match(rec)
		if err != nil {
			return false, err
		}
		if ok {
			rec.Raw = slices.Clone(line) // the reader reuses its buffer
			keep = append(keep, rec)
		}
		return len(keep) < q.Last, nil
	})
	if err != nil {
		return end, 0, err
	}
	slices.Reverse(keep)
	for _, rec := range keep {
		if err := fn(rec); err != nil {
			return end, 0, err
		}
	}
	return end, 0, nil
}

// one finds an iteration by reading backwards: iterations are numbered
// 1, 2, 3 ... in order, so recent ones are found without reading the rest.
func (q *Query) one(path string, fn func(*Record) error) (int64, int, error) {
	var found *Record
	end, err := readBackward(path, func(o int64, line []byte) (bool, error) {
		n := Iteration(line)
		if n > q.Iteration {
			return true, nil
		}
		if n == q.Iteration {
			found = &Record{Offset: o, Raw: slices.Clone(line)}
		}
		return false, nil
	})
	if err != nil {
		return end, 0, err
	}
	if found == nil {
		return end, 0, ErrNoSuchIteration
	}
	ok, err := q.match(found)
	if err != nil || !ok {
		return end, 0, err
	}
	return end, 0, fn(found)
}

// isObject: the whole line is one valid JSON object, in UTF-8 as JSON
// text must be (json.Valid lets other bytes pass inside strings, and
// loopkit never writes them: such a line was written by someone else).
func isObject(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 1 && raw[0] == '{' && json.Valid(raw) && utf8.Valid(raw)
}
