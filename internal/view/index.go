package view

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"

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
	var l SignalLog
	err := l.Read(st, id)
	return l.Last, err
}

// MaxSignals is how many of a run's signals the report and the full-screen
// view show: the newest, as they show the last iterations.
const MaxSignals = 200

// SignalLog holds a run's newest signals, reading events.jsonl on from
// where the last Read stopped: a view that shows them on every redraw
// reads each event once, and holds Keep signals however many the run has.
type SignalLog struct {
	Keep   int      // how many of the newest to hold; 0: every one
	Last   []Signal // the newest read, oldest first
	Total  int      // signals read in all
	Parsed int      // event lines read in all (tests count them)
	off    int64
	line   int
}

// Read adds the signals of the events appended since the last Read (all
// of them after a file that got shorter: another file). Of a signal it
// will not keep, only the type is decoded.
func (l *SignalLog) Read(st *store.Store, id string) error {
	path := st.RunPath(id, store.EventsFile)
	if fi, err := os.Lstat(path); err == nil && fi.Size() < l.off {
		*l = SignalLog{Keep: l.Keep}
	}
	var fresh [][]byte // the new signals' lines, the newest up to 2*Keep
	off, n, err := store.ScanFrom(path, l.off, l.line, func(_ int, _ int64, line []byte) error {
		l.Parsed++
		if !isSignal(line) {
			return nil
		}
		l.Total++
		if l.Keep > 0 && len(fresh) == 2*l.Keep { // amortised: one copy per Keep signals
			fresh = append(fresh[:0], fresh[l.Keep:]...)
		}
		fresh = append(fresh, bytes.Clone(line))
		return nil
	})
	l.off, l.line = off, n
	if l.Keep > 0 && len(fresh) > l.Keep {
		fresh = fresh[len(fresh)-l.Keep:]
	}
	for _, line := range fresh {
		l.Last = append(l.Last, signalOf(line))
	}
	if l.Keep > 0 && len(l.Last) > l.Keep {
		l.Last = append([]Signal(nil), l.Last[len(l.Last)-l.Keep:]...)
	}
	return err
}

// signalTypes are the event types Signals reads; a line that holds none
// of them is no signal, and is not decoded.
var signalTypes = []string{record.EventWatchdogSignal, record.EventWatchdogRewrite, record.EventRateLimited}

// isSignal: the line is a whole JSON event of a signal's type.
func isSignal(line []byte) bool {
	if !slices.ContainsFunc(signalTypes, func(t string) bool { return bytes.Contains(line, []byte(t)) }) {
		return false
	}
	var e struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(line, &e) == nil && slices.Contains(signalTypes, e.Type)
}

// signalOf is the Signal of a line isSignal took.
func signalOf(line []byte) Signal {
	var m map[string]any
	_ = json.Unmarshal(line, &m)
	s := Signal{}
	s.Type, _ = m["type"].(string)
	if n, ok := m["iteration"].(float64); ok {
		s.Iteration = int(n)
	}
	for _, k := range []string{"type", "iteration", "run_id", "ts"} {
		delete(m, k)
	}
	rest, _ := json.Marshal(m)
	s.Fields = string(rest)
	return s
}
