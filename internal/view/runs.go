package view

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/view/jsonobj"
)

// RunInfo is a run as the runs list reads it: run.json decoded and compact.
type RunInfo struct {
	Run *record.Run
	Raw []byte // run.json on one line
	// Interrupted is derived, never stored: a driver started the run (it
	// has an agent setting), the status is still running, and no driver
	// holds the run's driver lock, which the kernel frees when the driver
	// and its lock holder die. Runs written by plain pipelines never are.
	Interrupted bool
	// Driven: a driver loopkit recorded taking the run is alive (one
	// paused still ends its current step). Read for a paused run only.
	Driven bool
	// Review is the reviewer's verdict on the last iteration (describe
	// fills it; nil when that iteration was not reviewed).
	Review *IterationReview
	// Attempts are the run's paid calls that are not iterations (describe
	// fills them).
	Attempts []record.Attempt
}

// IterationReview is an iteration's review, with its number.
type IterationReview struct {
	Iteration int `json:"iteration"`
	record.Review
}

// LoadReview fills ri.Review from the run's last iteration.
func LoadReview(st *store.Store, ri *RunInfo) error {
	it, err := st.PeekLastIteration(ri.Run.RunID)
	if err != nil || it == nil || it.Review == nil {
		return err
	}
	ri.Review = &IterationReview{Iteration: it.Iteration, Review: *it.Review}
	return nil
}

// Interrupted is the status shown for an interrupted run.
const Interrupted = "interrupted"

// LoadRuns reads every run's run.json (never the iteration logs), newest
// first by created_at. A run.json that cannot be read is reported to warn and
// left out; a directory without one is not a run (yet).
func LoadRuns(st *store.Store, warn func(id string, err error)) ([]RunInfo, error) {
	return new(RunsCache).Load(st, warn)
}

// RunsCache is the runs list kept between loads, for a view that loads it
// again and again (the full-screen view, every Tick): a run.json that is
// still the same file (same inode, size and modification time: loopkit
// replaces it whole, by a rename) is not read and decoded again, so an
// idle view of a store of thousands of runs does not decode them all
// every Tick. Whether a run is interrupted or driven is asked anew on
// every load: a driver dies without writing run.json.
type RunsCache struct {
	runs map[string]cachedRun
	// Reads counts the run.json files read and decoded, for tests.
	Reads int
}

type cachedRun struct {
	fi os.FileInfo
	ri RunInfo
}

// Load is LoadRuns, reading only what changed since the last Load.
func (c *RunsCache) Load(st *store.Store, warn func(id string, err error)) ([]RunInfo, error) {
	ids, err := st.RunIDs()
	if err != nil {
		return nil, err
	}
	old := c.runs
	c.runs = make(map[string]cachedRun, len(ids))
	runs := make([]RunInfo, 0, len(ids))
	for _, id := range ids {
		fi, _ := os.Lstat(st.RunPath(id, store.RunFile))
		if prev, ok := old[id]; ok && fi != nil && sameFile(prev.fi, fi) {
			ri := prev.ri
			ri.askDriver(st, id)
			c.runs[id] = cachedRun{fi, ri}
			runs = append(runs, ri)
			continue
		}
		c.Reads++
		ri, err := LoadRun(st, id)
		if errors.Is(err, store.ErrNoSuchRun) {
			continue
		}
		if err != nil {
			warn(id, err)
			continue
		}
		if fi != nil && fi.Mode().IsRegular() {
			c.runs[id] = cachedRun{fi, ri}
		}
		runs = append(runs, ri)
	}
	sort.SliceStable(runs, func(i, j int) bool {
		a, b := runs[i].Run, runs[j].Run
		return newer(a.CreatedAt, a.RunID, b.CreatedAt, b.RunID)
	})
	return runs, nil
}

// newer orders the runs list: run a before run b when created later, or
// at the same time with the greater id.
func newer(aCreated int64, aID string, bCreated int64, bID string) bool {
	if aCreated != bCreated {
		return aCreated > bCreated
	}
	return aID > bID
}

// sameFile: b is still the regular file a was, unchanged.
func sameFile(a, b os.FileInfo) bool {
	return b.Mode().IsRegular() && os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// LoadRun reads one run's run.json; store.ErrNoSuchRun when it has none.
func LoadRun(st *store.Store, id string) (RunInfo, error) {
	path := st.RunPath(id, store.RunFile)
	data, err := st.ReadRunRaw(id)
	if err != nil {
		return RunInfo{}, err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		return RunInfo{}, fmt.Errorf("%s: %w", path, err)
	}
	r := &record.Run{}
	if err := json.Unmarshal(buf.Bytes(), r); err != nil {
		return RunInfo{}, fmt.Errorf("%s: %w", path, err)
	}
	if r.RunID == "" {
		r.RunID = id
	}
	// the directory is the run: a run_id that says otherwise (the agent
	// can write run.json) would show it as another run, or name the file
	// report --all --dir writes its page to
	if err := store.CheckRunID(id, r.RunID); err != nil {
		return RunInfo{}, err
	}
	// and as jq reads it: encoding/json also takes a "RUN_ID" for run_id
	if m, err := jsonobj.Project(buf.Bytes(), map[string]bool{"run_id": true}); err == nil {
		if v, ok := m["run_id"]; ok && v != id {
			return RunInfo{}, store.CheckRunID(id, fmt.Sprint(v))
		}
	}
	ri := RunInfo{Run: r, Raw: buf.Bytes()}
	// the agent can write run.json: show the settings the run keeps
	// outside the workspace, which are the ones in effect
	if len(runconfig.Enforce(st.RunDir(id), &r.Settings)) > 0 {
		var kept bytes.Buffer
		if data, err := record.MarshalIndent(r); err == nil && json.Compact(&kept, data) == nil {
			ri.Raw = kept.Bytes()
		}
	} else {
		ri.Raw = typedSettings(ri.Raw, &r.Settings)
	}
	ri.askDriver(st, id)
	return ri, nil
}

// askDriver sets what the run's driver says of it now: gone while the run
// is marked running (Interrupted), alive while it is paused (Driven). It is
// asked on every load, even of a cached run.json: a driver dies without
// writing run.json.
func (ri *RunInfo) askDriver(st *store.Store, id string) {
	ri.Interrupted = st.Interrupted(ri.Run)
	ri.Driven = ri.Run.Status == record.RunPaused && st.DriverAlive(id)
}

// Newest is the id of the most recently created run, "" when there is none:
// the first of the runs list (created_at, then the greater id), reading of
// each run.json only its head, since every command given no run asks.
func Newest(st *store.Store) (string, error) {
	ids, err := st.RunIDs()
	if err != nil {
		return "", err
	}
	newest, at := "", int64(0)
	for _, id := range ids {
		h, err := st.ReadRunHead(id)
		if err != nil { // unreadable: not in the runs list either
			continue
		}
		if h.RunID != "" {
			id = h.RunID
		}
		if newest == "" || newer(h.CreatedAt, id, at, newest) {
			newest, at = id, h.CreatedAt
		}
	}
	return newest, nil
}

// statusMark is the stored status as the views show it: a stuck run nobody
// has resolved yet is marked STUCK. Only RunInfo.StatusMark is exported, so
// no view can show a run whose driver is gone as running.
func statusMark(r *record.Run) string {
	if r.Status == record.RunStuck && r.ResolvedAt == nil {
		return "STUCK"
	}
	return r.Status
}

// JSON is run.json as stored, with "interrupted": true added for a run
// whose driver is gone: a --json list then says what the text list says.
func (ri RunInfo) JSON() []byte {
	raw := bytes.TrimSpace(ri.Raw)
	if !ri.Interrupted || len(raw) < 2 || raw[len(raw)-1] != '}' {
		return ri.Raw
	}
	out := append([]byte(nil), raw[:len(raw)-1]...)
	if len(bytes.TrimSpace(out)) > 1 {
		out = append(out, ',')
	}
	return append(out, `"interrupted":true}`...)
}

// StatusMark is the run's status as every view shows it: "interrupted" for
// a running run whose driver is gone, STUCK for an unresolved stuck run.
func (ri RunInfo) StatusMark() string {
	if ri.Interrupted {
		return Interrupted
	}
	return statusMark(ri.Run)
}

// RunColor is the colour of a run's status in the runs list.
func RunColor(status string) string { return runColor(status) }

func runColor(status string) string {
	switch status {
	case record.RunCompleted:
		return green
	case "STUCK", record.RunFailed, Interrupted:
		return red
	case record.RunStuck, record.RunCanceled:
		return yellow
	}
	return ""
}

// Undriven is the error a follower of a run (tail, events --follow, logs
// --follow --until-done) ends with once the run will not go on without a
// person: paused, or interrupted (no driver holds it). Followed, such a run
// would otherwise be waited on for ever, since only an ended run stops them.
type Undriven struct {
	ID  string
	Why string // Interrupted or record.RunPaused
}

func (e *Undriven) Error() string {
	if e.Why == record.RunPaused {
		return fmt.Sprintf("run %s is paused: no driver is driving it; 'loop resume %s' goes on", e.ID, e.ID)
	}
	return fmt.Sprintf("run %s was interrupted: its driver is gone; 'loop resume %s' goes on", e.ID, e.ID)
}

// Undriven is nil while the run is driven or has ended, else why it is not
// driven: paused (marked so, and its driver has ended its step: one still
// alive, or run.json written paused by another hand, is followed on) or
// interrupted. Read the status before the follower's last read: what was
// written before the driver went is then read.
func (ri RunInfo) Undriven() *Undriven {
	switch {
	case ri.Interrupted:
		return &Undriven{ID: ri.Run.RunID, Why: Interrupted}
	case ri.Run.Status == record.RunPaused && !ri.Driven:
		return &Undriven{ID: ri.Run.RunID, Why: record.RunPaused}
	}
	return nil
}
