// Package tui is loop-view's full-screen view (loop-tui): the runs list
// and, per run, the live step, the Logs, Output and Describe views and an
// iteration's page (final message and diff), following a running run as
// it records iterations. It reads the store through package view, only
// the records on screen; pause, resume and cancel run loop-drive and the
// driver, as the command line does.
package tui

import (
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/loopkit/loopkit/internal/jqfilter"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/view"
)

// Tick is how often the view looks for new runs and iterations, so a new
// iteration shows within a second.
const Tick = 400 * time.Millisecond

type screen int

const (
	runsScreen screen = iota
	logsScreen
	outputScreen
	describeScreen
	liveScreen
	pageScreen
)

// Model is the full-screen view's state. Only the records on screen are
// ever read; the index keeps 16 bytes per iteration.
type Model struct {
	st    *store.Store
	color bool
	w, h  int
	now   func() time.Time

	screen    screen
	runs      []view.RunInfo
	runsCache view.RunsCache // the runs list reads only the run.json files that changed
	runCur    int

	run      *record.Run
	mark     string // the run's status as shown: "interrupted" when its driver is gone
	working  bool   // not running, yet someone works on it (a step ends after a pause)
	idx      *view.Index
	attempts map[int][]record.Attempt // the run's paid calls that are not iterations, by iteration
	signals  view.SignalLog           // the run's newest signals (Describe), read on as events are appended
	sigRun   string                   // the run signals are of
	cur      int                      // selected iteration (index position)
	top      int                      // first iteration drawn
	skip     int                      // lines of it scrolled past
	expanded map[int64]bool           // by offset in the log
	follow   bool

	filtering bool
	input     textinput.Model
	filter    string
	msg       string // one line for errors and notices

	tools    Tools
	confirm  *pending // an action asked, waiting for y
	help     bool     // the key list is shown
	helpSkip int      // its lines above the top, on a short screen
	live     *live    // the running step followed (live screen)
	liveTop  int      // the live step's first line shown, when held
	liveHeld bool     // scrolled back: the live step does not follow
	page     []row    // the iteration page
	pageRows []row    // the page wrapped at pageW columns: what scrolls
	pageW    int
	pageSkip int // screen lines above the top
	pageFrom screen
}

// New starts on the runs list, or on run id's view when id is set (its
// live step when it is running, else its Logs); tools change runs.
func New(st *store.Store, id string, color bool, tools Tools) (*Model, error) {
	in := textinput.New()
	in.Prompt = "jq filter: "
	in.Placeholder = ".exit_code != 0"
	m := &Model{st: st, color: color, w: 80, h: 24, now: time.Now, expanded: map[int64]bool{}, input: in, tools: tools}
	if err := m.loadRuns(); err != nil {
		return nil, err
	}
	if id != "" {
		if err := m.open(id); err != nil {
			return nil, err
		}
	}
	return m, nil
}

type tickMsg struct{}

func tick() tea.Cmd { return tea.Tick(Tick, func(time.Time) tea.Msg { return tickMsg{} }) }

// Init starts the refresh ticks.
func (m *Model) Init() tea.Cmd { return tick() }

func (m *Model) loadRuns() error {
	runs, err := m.runsCache.Load(m.st, func(string, error) {})
	if err != nil {
		return err
	}
	m.runs = runs
	m.runCur = min(m.runCur, max(len(runs)-1, 0))
	return nil
}

// open shows a run: its live step when it is running, else its Logs view.
func (m *Model) open(id string) error {
	ri, err := view.LoadRun(m.st, id)
	if err != nil {
		return err
	}
	var f view.Filter // a nil *jqfilter.Filter in it would not be nil
	if m.filter != "" {
		if jf, err := jqfilter.Compile("/", m.filter, jqfilter.Where); err != nil {
			m.filter = ""
		} else {
			f = jf
		}
	}
	idx, err := view.NewIndex(m.st, id, f)
	if err != nil {
		return err
	}
	m.setRun(ri)
	m.idx, m.screen = idx, logsScreen
	m.loadAttempts()
	m.expanded = map[int64]bool{}
	m.follow = m.mark == record.RunRunning
	m.cur, m.top, m.skip = 0, 0, 0
	if m.follow {
		m.end()
		m.showLive()
	}
	return nil
}

// showLive switches to the live step, following the run's spool.
func (m *Model) showLive() {
	if m.live == nil {
		m.live, m.liveHeld = startLive(m.st, m.run.RunID), false
	}
	m.screen = liveScreen
}

// close leaves the run for the runs list.
func (m *Model) close() {
	if m.live != nil {
		m.live.stop()
		m.live = nil
	}
	m.screen, m.run, m.idx, m.page, m.pageRows = runsScreen, nil, nil, nil, nil
	_ = m.loadRuns()
}

// setRun keeps the open run's record and how its status is shown: a run
// paused or canceled while its step still runs is worked on (its live
// lock held) until the step ends, and says so, as describe does.
func (m *Model) setRun(ri view.RunInfo) {
	// shown in the title: run.json's, so escaped as the runs list does
	m.run, m.mark = ri.Run, view.Escape(ri.StatusMark(), false)
	m.working = false
	if m.mark != record.RunRunning {
		m.working, _ = m.st.IsLive(ri.Run.RunID)
	}
}

// loadAttempts reads the open run's attempts for its Logs lines (a few
// lines: each is a paid call); none when they cannot be read.
func (m *Model) loadAttempts() {
	atts, _ := view.LoadAttempts(m.st, m.run.RunID)
	m.attempts = view.AttemptsByIteration(atts)
}

// selected is the run the action keys act on: the one open, else the
// one under the cursor.
func (m *Model) selected() string {
	if m.run != nil {
		return m.run.RunID
	}
	if m.runCur < len(m.runs) {
		return m.runs[m.runCur].Run.RunID
	}
	return ""
}

// refresh picks up new runs, a run's new status and its new iterations.
func (m *Model) refresh() {
	if m.screen == runsScreen || m.run == nil {
		_ = m.loadRuns()
		return
	}
	if ri, err := view.LoadRun(m.st, m.run.RunID); err == nil {
		m.setRun(ri)
	}
	n, err := m.idx.Refresh()
	if err != nil {
		m.msg = err.Error()
	}
	if n > 0 { // an attempt is recorded before the iteration it precedes
		m.loadAttempts()
	}
	if n > 0 && m.follow {
		m.end()
	}
}

// setFilter applies a jq expression to the iterations ("" shows all).
func (m *Model) setFilter(expr string) {
	var f view.Filter
	if expr != "" {
		jf, err := jqfilter.Compile("/", expr, jqfilter.Where)
		if err != nil {
			m.msg = err.Error()
			return
		}
		f = jf
	}
	idx, err := view.NewIndex(m.st, m.run.RunID, f)
	if err != nil {
		m.msg = err.Error()
		return
	}
	m.idx, m.filter, m.msg = idx, expr, ""
	m.cur, m.top, m.skip = 0, 0, 0
	m.end()
}
