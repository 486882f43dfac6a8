package ratelimit

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/log"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/recorder"
	"github.com/loopkit/loopkit/internal/store"
)

func TestWait(t *testing.T) {
	now := time.UnixMilli(1_772_139_600_000)
	in3s := now.Add(3 * time.Second).UnixMilli()
	in1h := now.Add(time.Hour).UnixMilli()
	past := now.Add(-time.Minute).UnixMilli()
	for _, c := range []struct {
		name     string
		resetsAt *int64
		earlier  int
		want     time.Duration
	}{
		{"known reset", &in3s, 0, 3*time.Second + Margin},
		{"known reset, after a limited call: the backoff", &in3s, 1, time.Minute},
		{"known reset, after five: the backoff", &in3s, 5, 16 * time.Minute},
		{"far reset, after a limited call", &in1h, 2, time.Hour + Margin},
		{"reset passed: back off", &past, 0, time.Minute},
		{"unknown, first", nil, 0, time.Minute},
		{"unknown, third", nil, 2, 4 * time.Minute},
		{"unknown, capped", nil, 10, MaxBackoff},
	} {
		if got := Wait(c.resetsAt, now, c.earlier, time.Minute); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestAccount(t *testing.T) {
	for _, c := range [][3]string{
		{"", "/usr/local/bin/claude", "claude"},
		{"team", "codex", "team"},
	} {
		if got := Account(c[0], c[1]); got != c[2] {
			t.Errorf("Account(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

func TestNote(t *testing.T) {
	root := t.TempDir()
	now := time.UnixMilli(1_000_000)
	at := func(s int) int64 { return now.Add(time.Duration(s) * time.Second).UnixMilli() }
	if err := Leave(root, "claude", Entry{ResetsAt: at(60), RunID: "a"}, now); err != nil {
		t.Fatal(err)
	}
	if err := Leave(root, "claude", Entry{ResetsAt: at(30), RunID: "b"}, now); err != nil {
		t.Fatal(err)
	}
	if err := Leave(root, "codex", Entry{ResetsAt: at(10), RunID: "c"}, now); err != nil {
		t.Fatal(err)
	}
	if e, ok := Pending(root, "claude", now); !ok || e.RunID != "a" {
		t.Errorf("claude: %+v %v (an earlier time never replaces a later one)", e, ok)
	}
	if _, ok := Pending(root, "codex", now.Add(11*time.Second)); ok {
		t.Error("codex still pending after its time")
	}
	if _, ok := Pending(root, "gemini", now); ok {
		t.Error("an account nobody wrote is pending")
	}
	fi, err := os.Stat(filepath.Join(root, NoteFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("note mode %v %v", fi.Mode(), err)
	}
	os.WriteFile(filepath.Join(root, NoteFile), []byte("{torn"), 0o600)
	if _, ok := Pending(root, "claude", now); ok {
		t.Error("a damaged note is pending")
	}
	if err := Leave(root, "claude", Entry{ResetsAt: at(5)}, now); err != nil {
		t.Errorf("a damaged note is not replaced: %v", err)
	}
}

// TestNoteWrittenAhead: a loop whose clock was 5h30m ahead (a dual-boot
// RTC kept in local time, until NTP set it right) left a one-minute
// backoff; once the clock is back, loops wait that minute, not 5h31m, and
// a new limit's note replaces it.
func TestNoteWrittenAhead(t *testing.T) {
	root := t.TempDir()
	now := time.UnixMilli(1_772_139_600_000)
	ahead := now.Add(5*time.Hour + 30*time.Minute)
	if err := Leave(root, "claude", Entry{ResetsAt: ahead.Add(time.Minute).UnixMilli(), RunID: "a", WrittenAt: ahead.UnixMilli()}, ahead); err != nil {
		t.Fatal(err)
	}
	e, ok := Pending(root, "claude", now)
	if want := now.Add(time.Minute).UnixMilli(); !ok || e.ResetsAt != want {
		t.Fatalf("pending %+v %v, want resets_at %d (a minute from now)", e, ok, want)
	}
	if _, ok := Pending(root, "claude", now.Add(time.Minute)); ok {
		t.Error("still pending after the minute it asked for")
	}
	later := now.Add(2 * time.Minute)
	if err := Leave(root, "claude", Entry{ResetsAt: later.UnixMilli(), RunID: "b", WrittenAt: now.UnixMilli()}, now); err != nil {
		t.Fatal(err)
	}
	if e, ok := Pending(root, "claude", now); !ok || e.RunID != "b" {
		t.Errorf("a later reset did not replace the note left ahead: %+v %v", e, ok)
	}
}

// TestLineSaysTheDay: a wait that ends on another day says which, in the
// local zone; one that ends today says only the time.
func TestLineSaysTheDay(t *testing.T) {
	defer func(l *time.Location) { time.Local = l }(time.Local)
	time.Local = time.FixedZone("IST", 5*3600+1800)
	now := time.Date(2026, 7, 16, 22, 0, 0, 0, time.Local)
	for _, tc := range []struct {
		wait time.Duration
		want string
	}{
		{time.Hour, "rate-limited: waiting 1h0m0s, resuming at 23:00:00 IST"},
		{3 * time.Hour, "rate-limited: waiting 3h0m0s, resuming at Fri Jul 17 01:00:00 IST"},
		{30 * time.Hour, "rate-limited: waiting 30h0m0s, resuming at Sat Jul 18 04:00:00 IST"},
	} {
		if got := (Decision{Wait: tc.wait, ResumeAt: now.Add(tc.wait)}).Line(); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
}

func newDecider(t *testing.T, set Settings, now *time.Time) *Decider {
	t.Helper()
	st, _ := store.Open(filepath.Join(t.TempDir(), ".loop"))
	r := &recorder.Recorder{St: st, Log: log.New(io.Discard)}
	if err := r.EnsureRun("r1", "r1"); err != nil {
		t.Fatal(err)
	}
	return &Decider{St: r.St, W: r, Log: r.Log, Run: "r1", Set: set, Agent: "claude -p", Now: func() time.Time { return *now }}
}

// A limited call leaves a note its own run then waits on; waits add up
// across a stretch and the one that would pass max_wait pauses; another run
// of the account waits on the note without calling its agent; a recorded
// iteration starts a new stretch.
func TestDeciderStretch(t *testing.T) {
	now := time.UnixMilli(1_772_139_600_000)
	d := newDecider(t, Settings{MaxWait: 4 * time.Minute, Backoff: time.Minute}, &now)
	d.Agent = "/usr/bin/claude"
	if got := limitedRounds(t, d, &now, 3, nil); got != "1m0s=1m0s 2m0s=2m0s pause" {
		t.Errorf("waits %v, want 1m 2m pause", got)
	}
	if err := d.W.(*recorder.Recorder).EnsureRun("r2", "r2"); err != nil {
		t.Fatal(err)
	}
	other := &Decider{St: d.St, W: d.W, Log: d.Log, Run: "r2", Set: Settings{MaxWait: time.Hour}, Agent: "/opt/bin/claude", Now: d.Now}
	dec, err := other.Before()
	if err != nil || dec.Wait != 4*time.Minute || dec.Pause {
		t.Errorf("Before of another run: %+v %v", dec, err)
	}
	if s, _ := CurrentStretch(d.St, "r2"); s.Attempts != 0 || s.Waited != 4*time.Minute {
		t.Errorf("stretch %+v: the note wait is not an agent attempt", s)
	}
	if s, _ := CurrentStretch(d.St, "r1"); s.Attempts != 3 || s.Waited != 7*time.Minute {
		t.Errorf("stretch of r1 %+v", s)
	}
	n := 1
	d.W.Update("r1", func(*record.Run) error {
		return d.W.AppendEvent(record.Event{RunID: "r1", Type: record.EventIterationRecorded, Iteration: &n})
	})
	if s, _ := CurrentStretch(d.St, "r1"); s != (Stretch{}) {
		t.Errorf("after an iteration: %+v", s)
	}
}

// A reset that did not hold is not trusted again: Claude Code's
// retry_delay_ms is its own half-second backoff when the API sent no
// retry-after, and a loop that waited only that called the rate-limited
// API every two seconds for hours (18 calls in 45 s with the real CLI).
// From the stretch's second limited call the wait is the backoff at least.
func TestShortResetBacksOff(t *testing.T) {
	now := time.UnixMilli(1_772_139_600_000)
	d := newDecider(t, Settings{MaxWait: time.Hour, Backoff: time.Minute}, &now)
	var got []string
	for i := 0; i < 4; i++ {
		at := now.Add(500 * time.Millisecond).UnixMilli()
		w, err := d.Limited(&record.Step{RateLimited: true, RateLimitResetsAt: &at})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, w.String())
		now = now.Add(w)
	}
	if strings.Join(got, " ") != "1.5s 1m0s 2m0s 4m0s" {
		t.Errorf("waits %v, want the reset once, then the backoff: 1.5s 1m 2m 4m", got)
	}
}

// The driver writes STEP_STARTED and STEP_FINISHED around every agent
// call, limited ones too: they are no start of a stretch. When they were,
// every limited call began a stretch of its own, so the backoff never
// doubled and --max-wait never paused (the real Claude Code, given a 429
// without retry-after, was called 229 times in 10 minutes under a 30 s
// --max-wait).
func TestStretchSpansSteps(t *testing.T) {
	now := time.UnixMilli(1_772_139_600_000)
	d := newDecider(t, Settings{MaxWait: 4 * time.Minute, Backoff: time.Minute}, &now)
	steps := func() {
		for _, typ := range []string{record.EventStepStarted, record.EventStepFinished} {
			if _, err := d.W.Update("r1", func(*record.Run) error {
				return d.W.AppendEvent(record.Event{TS: now.UnixMilli(), RunID: "r1", Type: typ, StepID: "r1-step-1"})
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := limitedRounds(t, d, &now, 4, steps); got != "1m0s=1m0s 2m0s=2m0s pause" {
		t.Errorf("waits %v, want 1m 2m pause", got)
	}
}

// limitedRounds makes up to n limited calls (each after before, when
// given), waiting what Before says: "wait=before-wait …", "pause" last
// when the run paused.
func limitedRounds(t *testing.T, d *Decider, now *time.Time, n int, before func()) string {
	t.Helper()
	var got []string
	for i := 0; i < n; i++ {
		if before != nil {
			before()
		}
		w, err := d.Limited(&record.Step{RateLimited: true})
		if err != nil {
			t.Fatal(err)
		}
		dec, err := d.Before()
		if err != nil {
			t.Fatal(err)
		}
		if dec.Pause {
			got = append(got, "pause")
			break
		}
		got = append(got, w.String()+"="+dec.Wait.String())
		*now = now.Add(dec.Wait)
	}
	return strings.Join(got, " ")
}

// A reset time far ahead (1e13 or 9e15 seconds given as ms, int64's end)
// never overflows a wait into a negative one: the wait is capped at
// Longest, and a stretch past max_wait pauses the run.
func TestFarFutureReset(t *testing.T) {
	now := time.UnixMilli(1_772_139_600_000)
	for _, at := range []int64{1e13 * 1000, 9e15 * 1000, math.MaxInt64} {
		if got := Wait(&at, now, 0, time.Minute); got != Longest {
			t.Errorf("Wait(%d) = %s, want %s", at, got, Longest)
		}
		d := newDecider(t, Settings{MaxWait: DefaultMaxWait, Backoff: time.Minute}, &now)
		w, err := d.Limited(&record.Step{RateLimited: true, RateLimitResetsAt: &at})
		if err != nil || w != Longest {
			t.Fatalf("Limited(%d): %s %v", at, w, err)
		}
		if dec, err := d.Before(); err != nil || !dec.Pause {
			t.Errorf("Before after a reset at %d: %+v %v, want a pause", at, dec, err)
		}
	}
}

// The note is in the agent's reach: as a FIFO it must not block a loop,
// as a link it must not decide the wait; either is replaced by the next
// Leave, never written through.
func TestHostileNote(t *testing.T) {
	root := t.TempDir()
	now := time.UnixMilli(1_000_000)
	note := filepath.Join(root, NoteFile)
	if err := syscall.Mkfifo(note, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := Pending(root, "claude", now); ok { // blocked here before
		t.Error("a FIFO note is pending")
	}
	if err := Leave(root, "claude", Entry{ResetsAt: 2_000_000}, now); err != nil {
		t.Fatal(err)
	}
	os.Remove(note)
	outside := filepath.Join(t.TempDir(), "planted.json")
	os.WriteFile(outside, []byte(`{"accounts":{"claude":{"resets_at":9000000000000}}}`), 0o600)
	os.Symlink(outside, note)
	if e, ok := Pending(root, "claude", now); ok {
		t.Errorf("a note behind a link decides the wait: %+v", e)
	}
	if err := Leave(root, "claude", Entry{ResetsAt: 2_000_000}, now); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(outside); !strings.Contains(string(data), "9000000000000") {
		t.Errorf("the file behind the link was written: %s", data)
	}
	if fi, err := os.Lstat(note); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the link was not replaced: %v %v", fi, err)
	}
}
