package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/loopkit/loopkit/internal/agent"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/view"
)

// liveMax is how many lines of the running step the view keeps: the last
// screens, so memory stays flat however long the agent talks.
const liveMax = 500

// liveLineMax caps one kept line (in characters): it is drawn on one row.
const liveLineMax = 1000

// liveBacklog is how much of a running step's output the view reads when
// it opens: enough for liveMax lines of most agents, so that a step that
// has printed 200 MB opens at once.
const liveBacklog = 4 << 20

// live follows a running run's steps as loop-view tail does (package
// view's Tail reading the spool), in a goroutine, keeping the last lines
// as text for people: the agent's messages and tool calls, the
// validation's output, and the agent's retry notices.
type live struct {
	mu      sync.Mutex
	lines   []liveLine // a ring of at most liveMax
	first   int        // index of the oldest line in lines
	total   int        // lines ever added: the newest is line total-1
	source  string     // agent or validation: the step running now
	command string
	started time.Time
	notice  string // the latest retry notice
	err     error
	ended   bool
	cancel  context.CancelFunc
}

type liveLine struct {
	text  string
	color string
}

// startLive follows run id until it ends or stop is called.
func startLive(st *store.Store, id string) *live {
	ctx, cancel := context.WithCancel(context.Background())
	l := &live{cancel: cancel}
	t := &view.Tail{St: st, RunID: id, Interval: 200 * time.Millisecond,
		Flush: func() error { return nil }, KeepUndriven: true, Backlog: liveBacklog}
	t.Started = func(source string, meta store.SpoolMeta) {
		l.mu.Lock()
		l.source, l.command, l.notice = source, meta.Command, ""
		l.started = time.UnixMilli(meta.StartedAt)
		l.mu.Unlock()
	}
	t.Header = func(source, command string) error {
		l.add(fmt.Sprintf("── %s: %s", source, view.Escape(command, false)), "bold")
		return nil
	}
	t.Notice = func(text string) error {
		text = view.Escape(text, false) // it quotes the agent's words
		l.mu.Lock()
		l.notice = text
		l.mu.Unlock()
		l.add("⟳ "+text, "yellow")
		return nil
	}
	t.Event = func(ev view.TailEvent) error {
		if ev.Event == nil {
			c := ""
			if ev.Stream == "stderr" {
				c = "red"
			}
			l.add(view.Escape(*ev.Text, false), c)
			return nil
		}
		for _, s := range agent.Describe(ev.Event, liveLineMax) {
			l.add(view.Escape(s, false), "")
		}
		return nil
	}
	go func() {
		err := t.Run(ctx)
		l.mu.Lock()
		l.ended = true
		if err != nil && ctx.Err() == nil {
			l.err = err
		}
		l.mu.Unlock()
	}()
	return l
}

func (l *live) stop() { l.cancel() }

func (l *live) add(text, color string) {
	text = strings.TrimRight(expandTabs(text), " \r")
	if r := []rune(text); len(r) > liveLineMax {
		text = string(r[:liveLineMax-1]) + "…"
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total++
	if len(l.lines) < liveMax {
		l.lines = append(l.lines, liveLine{text, color})
		return
	}
	l.lines[l.first] = liveLine{text, color}
	l.first = (l.first + 1) % liveMax
}

// bounds is the number of the oldest line kept and of the line after
// the newest (lines are numbered from the first ever added).
func (l *live) bounds() (oldest, total int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total - len(l.lines), l.total
}

// snapshot copies n lines (oldest first) from line top, or the last n when
// top < 0, moved into what is kept, and the step's state.
func (l *live) snapshot(top, n int) (lines []liveLine, source, command string, started time.Time, notice string, ended bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := len(l.lines)
	from := max(k-n, 0) // ring positions, 0 the oldest
	if top >= 0 {
		from = min(max(top-(l.total-k), 0), from)
	}
	for i := from; i < min(from+n, k); i++ {
		lines = append(lines, l.lines[(l.first+i)%k])
	}
	return lines, l.source, l.command, l.started, l.notice, l.ended, l.err
}

// liveKey scrolls the live step through the lines it keeps: up, a page or
// to the oldest holds the view where it is while the agent goes on; down
// to the newest (G, f) follows again.
func (m *Model) liveKey(k string) {
	if m.live == nil {
		return
	}
	oldest, total := m.live.bounds()
	n := max(m.bodyHeight()-2, 1) // the step's head and notice lines
	last := max(total-n, oldest)  // the top that shows the newest lines
	top := last
	if m.liveHeld {
		top = min(max(m.liveTop, oldest), last)
	}
	switch k {
	case "up", "k":
		top--
	case "down", "j":
		top++
	case "home", "g":
		top = oldest
	case "end", "G":
		top = last
	case "space", "pgdown", "ctrl+d":
		top += n - 1
	case "b", "pgup", "ctrl+u":
		top -= n - 1
	case "f":
		m.liveTop, m.liveHeld = last, !m.liveHeld
		return
	default:
		return
	}
	top = min(max(top, oldest), last)
	m.liveTop, m.liveHeld = top, top < last
}

// liveBody draws the step: a line saying what runs and for how long (and
// the latest retry notice), then its newest lines, each cut to the width.
func (m *Model) liveBody(h int) []string {
	if m.live == nil {
		return []string{"  (not following this run)"}
	}
	top := -1
	if m.liveHeld {
		top = m.liveTop
	}
	lines, source, command, started, notice, ended, err := m.live.snapshot(top, h-2)
	var head string
	switch {
	case err != nil:
		head = "live view stopped: " + err.Error()
	case source == "":
		head = "no step has started since the view opened (" + m.mark + ")"
	default:
		head = fmt.Sprintf("%s: %s", source, view.Escape(command, false))
		if !ended && (m.mark == record.RunRunning || m.working) {
			head = fmt.Sprintf("%s running %s · %s", source, elapsed(m.now().Sub(started)), view.Escape(command, false))
		}
	}
	out := []string{m.paint(row{text: truncate("  "+head, m.w), color: "bold"}, false)}
	if wait := m.rateWait(); wait != "" {
		notice = wait // the driver waits: no step runs
	}
	if notice != "" {
		out = append(out, m.paint(row{text: truncate("  "+notice, m.w), color: "yellow"}, false))
	} else {
		out = append(out, "")
	}
	if len(lines) == 0 {
		out = append(out, "  (no output yet)")
	}
	for _, l := range lines {
		out = append(out, m.paint(row{text: truncate("  "+l.text, m.w), color: l.color}, false))
	}
	return out[:min(h, len(out))]
}

// rateWait says what the driver waits for when the run's last event is a
// rate-limit wait still running (the driver's "waiting" line); "" else.
func (m *Model) rateWait() string {
	lines, err := store.TailLines(m.st.RunPath(m.run.RunID, store.EventsFile), 1)
	if err != nil || len(lines) == 0 {
		return ""
	}
	var e record.Event
	if json.Unmarshal(lines[len(lines)-1], &e) != nil || e.Type != record.EventRateLimited || e.WaitMs == nil {
		return ""
	}
	left := time.UnixMilli(e.TS).Add(time.Duration(*e.WaitMs) * time.Millisecond).Sub(m.now())
	if left <= 0 || m.mark != record.RunRunning {
		return ""
	}
	return fmt.Sprintf("rate limited, next try in %s: %s", elapsed(left), view.Escape(e.Message, false))
}

// elapsed is a duration as 1h02m03s, 2m03s or 3s.
func elapsed(d time.Duration) string {
	d = max(d, 0).Round(time.Second)
	h, mnt, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	switch {
	case h > 0:
		return fmt.Sprintf("%dh%02dm%02ds", h, mnt, s)
	case mnt > 0:
		return fmt.Sprintf("%dm%02ds", mnt, s)
	}
	return fmt.Sprintf("%ds", s)
}
