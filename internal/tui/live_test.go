package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// oneRun is a store holding run r1 with status, started by agent (none:
// not started by a driver).
func oneRun(t *testing.T, status string, agent ...string) *store.Store {
	t.Helper()
	st := &store.Store{Root: filepath.Join(t.TempDir(), ".loop")}
	run := store.NewRun("r1", "r1", 1)
	run.Status = status
	run.Settings.Agent = agent
	if err := st.CreateRun(run); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestLiveRateLimitWait: while the driver waits out a rate limit (the
// run's last event is RATE_LIMITED and its wait is not over), the live
// step says so, with the time left; once it is over, it does not.
func TestLiveRateLimitWait(t *testing.T) {
	st := oneRun(t, record.RunRunning)
	now := time.UnixMilli(1_800_000_000_000)
	wait := int64(90_000)
	line, _ := record.Marshal(record.Event{TS: now.UnixMilli() - 30_000, RunID: "r1", Type: record.EventRateLimited,
		WaitMs: &wait, Message: "the agent hit a usage or rate limit: 429"})
	if err := os.WriteFile(st.RunPath("r1", store.EventsFile), append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := New(st, "r1", false, Tools{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.live.stop()
	m.now = func() time.Time { return now }
	screen := strings.Join(m.liveBody(20), "\n")
	if !strings.Contains(screen, "rate limited, next try in 1m00s: the agent hit a usage or rate limit: 429") {
		t.Fatalf("no wait on the live step:\n%s", screen)
	}
	m.now = func() time.Time { return now.Add(time.Minute) }
	if screen := strings.Join(m.liveBody(20), "\n"); strings.Contains(screen, "rate limited") {
		t.Fatalf("a wait that is over still shown:\n%s", screen)
	}
}

// TestLiveScroll: the live step keeps its last lines and the run view's
// keys scroll them (the help lists j/k, g/G, space/b and f for a run):
// scrolled back, the view holds while the agent goes on talking; G or f
// follows the newest line again.
func TestLiveScroll(t *testing.T) {
	st := oneRun(t, record.RunRunning)
	m, err := New(st, "", false, Tools{})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.open("r1"); err != nil {
		t.Fatal(err)
	}
	m.live.stop()
	m.live = &live{cancel: func() {}} // lines added here, not from a spool
	m.w, m.h = 80, 12                 // 10 body lines: 8 of the step's
	add := func(from, to int) {
		for i := from; i <= to; i++ {
			m.live.add(fmt.Sprintf("line %d", i), "")
		}
	}
	shows := func(first, last int) {
		t.Helper()
		body := m.liveBody(m.bodyHeight())[2:]
		if len(body) != last-first+1 || body[0] != fmt.Sprintf("  line %d", first) || body[len(body)-1] != fmt.Sprintf("  line %d", last) {
			t.Fatalf("want lines %d-%d, got:\n%s", first, last, strings.Join(body, "\n"))
		}
	}
	add(1, 30)
	shows(23, 30)
	m.key("k")
	shows(22, 29)
	if strings.Contains(m.title(), "following") {
		t.Errorf("scrolled back, the title still says following: %s", m.title())
	}
	add(31, 40) // the agent goes on: the view holds
	shows(22, 29)
	m.key("b")
	shows(15, 22)
	m.key("g")
	shows(1, 8)
	m.key("space")
	shows(8, 15)
	m.key("G")
	shows(33, 40)
	if !strings.Contains(m.title(), "following") {
		t.Errorf("at the end, the title does not say following: %s", m.title())
	}
	m.key("f") // hold where it is
	add(41, 41)
	shows(33, 40)
	m.key("f")
	shows(34, 41)
	add(42, liveMax+100) // the held line falls out of the ring: the oldest kept
	m.key("g")
	shows(101, 108)
}

// TestInterruptedRunNotRunning: a run whose driver died (status running,
// no driver holding its lock) is "interrupted" in the runs list; opened,
// its title and live step said "running" and "agent running 8s" for a
// step nobody runs. It opens on its Logs, and every view says interrupted.
func TestInterruptedRunNotRunning(t *testing.T) {
	st := oneRun(t, record.RunRunning, "claude", "-p")
	m, err := New(st, "r1", false, Tools{})
	if err != nil {
		t.Fatal(err)
	}
	m.w, m.h = 80, 24
	if m.screen != logsScreen {
		t.Errorf("an interrupted run opens on screen %v, want its Logs", m.screen)
	}
	m.showLive()
	defer m.live.stop()
	screen := m.View().Content
	if !strings.Contains(screen, "r1 · interrupted · 0 it") || strings.Contains(screen, "running") {
		t.Fatalf("an interrupted run's live step:\n%s", screen)
	}
}

// TestLogsShowAttempts: the Logs view's line per iteration is loop-view
// logs' line, with the paid calls that preceded the iteration
// ("— attempts: interrupted $0.40"); the view left them out.
func TestLogsShowAttempts(t *testing.T) {
	st := oneRun(t, record.RunFailed)
	cost := 0.4
	for _, l := range []any{
		record.IterationLog{ID: record.IterationID("r1", 1), RunID: "r1", Iteration: 1, Status: record.StatusFail, ExitCode: 1, ValidationCommand: "make test", FilesChanged: []string{}},
		record.Attempt{ID: "r1-attempt-1", RunID: "r1", Attempt: 1, Kind: "interrupted", Iteration: 1, CostUSD: &cost},
		record.IterationLog{ID: record.IterationID("r1", 2), RunID: "r1", Iteration: 2, Status: record.StatusFail, ExitCode: 1, ValidationCommand: "make test", FilesChanged: []string{}},
	} {
		file := store.IterationsFile
		if _, ok := l.(record.Attempt); ok {
			file = store.AttemptsFile
		}
		line, err := record.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.AppendLine(st.RunPath("r1", file), line); err != nil {
			t.Fatal(err)
		}
	}
	m, err := New(st, "r1", false, Tools{})
	if err != nil {
		t.Fatal(err)
	}
	m.w, m.h = 100, 24
	if screen := m.View().Content; !strings.Contains(screen, "[2] make test — exit 1 — 0ms — 0 files — attempts: interrupted $0.40") {
		t.Fatalf("the Logs view lacks iteration 2's attempt:\n%s", screen)
	}
}

// TestPausedRunStillWorking: a run paused while its step runs is paused
// in run.json at once, but its agent works on until the step ends; the
// view said "paused" and dropped the step's "running 8s", as if nothing
// ran. It says "paused (live)", as loop-view describe does, while anyone
// holds the run's live lock.
func TestPausedRunStillWorking(t *testing.T) {
	st := oneRun(t, record.RunPaused)
	lock, err := st.LockLive("r1")
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(st, "r1", false, Tools{})
	if err != nil {
		t.Fatal(err)
	}
	m.w, m.h = 80, 24
	if screen := m.View().Content; !strings.Contains(screen, "r1 · paused (live) · 0 it") {
		t.Fatalf("a paused run still worked on:\n%s", screen)
	}
	lock.Unlock()
	m.refresh()
	if screen := m.View().Content; !strings.Contains(screen, "r1 · paused · 0 it") {
		t.Fatalf("a paused run nobody works on:\n%s", screen)
	}
}

// TestLiveOpensAtTheEnd: a step that has printed far more than the view
// keeps opens at its end. The live step read an agent's whole output
// from its first byte first (200 MB took the view tens of seconds of
// CPU before it showed anything); it now reads the last liveBacklog
// bytes, from a line's start.
func TestLiveOpensAtTheEnd(t *testing.T) {
	st := oneRun(t, record.RunRunning, "agent")
	if err := os.MkdirAll(st.SpoolDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(st.SpoolDir(), "1-2-ab.step")
	meta, _ := json.Marshal(store.SpoolMeta{Command: "agent", RunID: "r1"})
	os.WriteFile(base+".json", meta, 0o600)
	var out bytes.Buffer
	n := 3 * liveBacklog / 20 // lines of 20 bytes: three backlogs
	for i := range n {
		fmt.Fprintf(&out, "output line %07d\n", i)
	}
	if err := os.WriteFile(base+".stdout", out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	l := startLive(st, "r1")
	defer l.stop()
	last := fmt.Sprintf("output line %07d", n-1)
	for {
		l.mu.Lock()
		newest, ended, err := "", l.ended, l.err
		if len(l.lines) > 0 {
			newest = l.lines[(l.first+len(l.lines)-1)%len(l.lines)].text
		}
		total := l.total
		l.mu.Unlock()
		if newest == last {
			// the header, then the lines that start in the backlog: one
			// more would be a line read from its middle
			size := int64(out.Len())
			if want := 1 + n - int((size-liveBacklog+19)/20); total != want {
				t.Fatalf("read %d lines to show the last, want %d", total, want)
			}
			return
		}
		if ended {
			t.Fatalf("the live step ended (%v) before its last line", err)
		}
		time.Sleep(10 * time.Millisecond) // polling the view's own state
	}
}

// TestTitleEscapesStatus: the title and the live step name the run's
// status, which run.json holds (the agent can write it): a C1 control or
// a bidirectional override in it shows escaped, as in the runs list.
func TestTitleEscapesStatus(t *testing.T) {
	st := oneRun(t, "stuck\u009b2J\u202e")
	m, err := New(st, "r1", false, Tools{})
	if err != nil {
		t.Fatal(err)
	}
	m.w, m.h = 80, 24
	m.showLive()
	defer m.live.stop()
	screen := m.View().Content + strings.Join(m.liveBody(20), "\n")
	if strings.ContainsAny(screen, "\u009b\u202e") || !strings.Contains(screen, `stuck\u009b2J\u202e`) {
		t.Fatalf("status not escaped:\n%q", screen)
	}
}
