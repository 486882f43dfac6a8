package view

import (
	"encoding/json"
	"fmt"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/store"
)

// Index locates the iterations of a run's log that pass a filter, for views
// that show a window of them (the full-screen view): it keeps each one's
// offset and length, 16 bytes an iteration, and reads a record only when
// it is shown, so memory follows what is on screen, not the run's length.
type Index struct {
	path   string
	q      *Query
	spans  []span
	end    int64 // offset after the last committed line read
	lineNo int
}

type span struct {
	off int64
	n   int
}

// NewIndex indexes the run's log, keeping the lines filter passes (nil:
// all). A filter's runtime error on a record leaves that record out.
func NewIndex(st *store.Store, id string, filter Filter) (*Index, error) {
	x := &Index{path: st.RunPath(id, store.IterationsFile), q: &Query{OnError: func(*Record, error) {}}}
	if filter != nil {
		x.q.Filters = []Filter{filter}
	}
	_, err := x.Refresh()
	return x, err
}

// Refresh reads the lines committed since the last call and reports how
// many new records passed the filter. A torn last line waits for its end.
func (x *Index) Refresh() (int, error) {
	before := len(x.spans)
	end, lineNo, err := x.q.From(x.path, x.end, x.lineNo, func(rec *Record) error {
		x.spans = append(x.spans, span{rec.Offset, len(rec.Raw)})
		return nil
	})
	x.end, x.lineNo = end, lineNo
	return len(x.spans) - before, err
}

// Len is how many records passed the filter.
func (x *Index) Len() int { return len(x.spans) }

// Raw reads record i as stored.
func (x *Index) Raw(i int) ([]byte, error) {
	if i < 0 || i >= len(x.spans) {
		return nil, fmt.Errorf("record %d of %d", i, len(x.spans))
	}
	f, err := safefile.Open(x.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := x.spans[i]
	buf := make([]byte, s.n)
	if _, err := f.ReadAt(buf, s.off); err != nil {
		return nil, err
	}
	return buf, nil
}

// Record reads record i for the views' Write methods.
func (x *Index) Record(i int) (*Record, error) {
	raw, err := x.Raw(i)
	if err != nil {
		return nil, err
	}
	return &Record{Offset: x.spans[i].off, Raw: raw}, nil
}

// Offset identifies record i across refreshes and filters.
func (x *Index) Offset(i int) int64 { return x.spans[i].off }

// Outcome reads the exit code and status of a stored line, for colouring.
func Outcome(raw []byte) (code int, status string) {
	it, err := decodeLog(raw, keySet("exit_code", "status"))
	if err != nil {
		return 0, ""
	}
	return it.ExitCode, it.Status
}

// ExitColor is the colour of an outcome (the views' colour code): "green", "red"
// or "yellow".
func ExitColor(code int, status string) string {
	switch exitColor(code, status) {
	case green:
		return "green"
	case red:
		return "red"
	}
	return "yellow"
}

// Signal is a watchdog or rate-limit event of a run, as events.jsonl holds it.
type Signal struct {
	Type      string
	Iteration int
	// Fields are the event's other fields as compact JSON.
	Fields string
}

// Signals reads the watchdog's and the rate-limit waits' events of a run.
func Signals(st *store.Store, id string) ([]Signal, error) {
	var out []Signal
	err := store.ScanFile(st.RunPath(id, store.EventsFile), func(_ int, line []byte) error {
		var m map[string]any
		if json.Unmarshal(line, &m) != nil {
			return nil
		}
		typ, _ := m["type"].(string)
		if typ != record.EventWatchdogSignal && typ != record.EventWatchdogRewrite && typ != record.EventRateLimited {
			return nil
		}
		s := Signal{Type: typ}
		if n, ok := m["iteration"].(float64); ok {
			s.Iteration = int(n)
		}
		for _, k := range []string{"type", "iteration", "run_id", "ts"} {
			delete(m, k)
		}
		rest, _ := json.Marshal(m)
		s.Fields = string(rest)
		out = append(out, s)
		return nil
	})
	return out, err
}
