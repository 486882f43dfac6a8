package nextaction

import (
	"strconv"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/finalverify"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
)

// TestOverDuration: the drivers' checkpointed work plus the time since the
// checkpoint is compared with --max-duration; before it, the next step's
// timeout is cut to what is left plus the grace.
func TestOverDuration(t *testing.T) {
	now := time.UnixMilli(10_000_000)
	for _, tt := range []struct {
		name             string
		set              map[string]string
		wantRule, wantTO string
	}{
		{"no cap", map[string]string{KeyDrivenMS: "99999999"}, "next", ""},
		{"under it", map[string]string{KeyMaxDuration: "1h", KeyDrivenMS: "600000", KeyDrivenAt: "9990000"}, "next", ""},
		{"under it, the step cut", map[string]string{KeyMaxDuration: "30m", KeyDrivenMS: "1190000", KeyDrivenAt: "9990000"}, "next", "11m0s"},
		{"a bare number is seconds", map[string]string{KeyMaxDuration: "90", KeyTimeout: "0", KeyDurationGrace: "1s"}, "next", "1m31s"},
		{"the checkpoint alone", map[string]string{KeyMaxDuration: "10m", KeyDrivenMS: "600000"}, "over_duration", ""},
		{"a resumed run goes on counting", map[string]string{KeyMaxDuration: "20m", KeyDrivenMS: "1190000", KeyDrivenAt: "9990000"}, "over_duration", ""},
		// the wall clock jumped hours ahead since the holder's checkpoint:
		// at most MaxUnsaved of it counts
		{"a clock jump is not work", map[string]string{KeyMaxDuration: "20m", KeyDrivenMS: "600000", KeyDrivenAt: "1"}, "next", "6m0s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			run := &record.Run{Status: "running", Settings: runconfig.MustFromMap(tt.set)}
			a := Decide(&Input{Run: run, Recent: []*record.IterationLog{iter(1, "fail", 0, true)}, Now: now}, Rules)
			if a.Rule != tt.wantRule || a.Extra["step_timeout"] != tt.wantTO {
				t.Fatalf("got rule %s, step_timeout %q; want %s, %q", a.Rule, a.Extra["step_timeout"], tt.wantRule, tt.wantTO)
			}
			if want := tt.set[KeyMaxDuration] != "" && a.Rule == "next"; (a.Extra["deadline_ms"] != "") != want {
				t.Fatalf("deadline_ms %q with max_duration %q", a.Extra["deadline_ms"], tt.set[KeyMaxDuration])
			}
			if a.Rule == "over_duration" && (a.Status != "failed" || a.Exit != 3 || a.Reason[:13] != "over duration") {
				t.Fatalf("got %+v", a)
			}
		})
	}
}

// TestDeadline: the validation's deadline is now plus what is left of
// --max-duration plus the grace, as the step's timeout.
func TestDeadline(t *testing.T) {
	now := time.UnixMilli(10_000_000)
	run := &record.Run{Status: "running", Settings: runconfig.MustFromMap(map[string]string{KeyMaxDuration: "30m", KeyDrivenMS: "1190000", KeyDrivenAt: "9990000"})}
	a := Decide(&Input{Run: run, Recent: []*record.IterationLog{iter(1, "fail", 0, true)}, Now: now}, Rules)
	if want := strconv.FormatInt(now.Add(11*time.Minute).UnixMilli(), 10); a.Extra["deadline_ms"] != want {
		t.Fatalf("deadline_ms %q, want %s (now + 10m left + 1m grace)", a.Extra["deadline_ms"], want)
	}
}

// TestFoldWorked: the holder's checkpoint adds the time it measured on the
// monotonic clock, so a wall clock set hours ahead (NTP correcting a VM) or
// back adds nothing more, and time a stopping decision saved meanwhile is
// not counted twice.
func TestFoldWorked(t *testing.T) {
	at := int64(10_000_000)
	for _, tt := range []struct {
		name   string
		now    int64 // wall clock at the checkpoint, ms
		worked time.Duration
		want   int64 // driven_ms after it
	}{
		{"as measured", at + 10_000, 10 * time.Second, 610_000},
		{"the clock jumped 5h ahead", at + 5*3600_000 + 10_000, 10 * time.Second, 610_000},
		{"the clock went back 5m", at - 300_000, 10 * time.Second, 600_000},
		{"a decision saved 8 s of it since", at + 2_000, 10 * time.Second, 602_000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			set := runconfig.MustFromMap(map[string]string{KeyDrivenMS: "600000", KeyDrivenAt: strconv.FormatInt(at, 10)})
			FoldWorked(&set, time.UnixMilli(tt.now), tt.worked)
			if set.DrivenMS != tt.want || set.DrivenAt != tt.now {
				t.Fatalf("driven_ms %d, driven_at %d; want %d, %d", set.DrivenMS, set.DrivenAt, tt.want, tt.now)
			}
		})
	}
}

func TestStartBounds(t *testing.T) {
	for _, tt := range []struct {
		set  map[string]string
		want string
	}{
		{map[string]string{}, "no cost cap: bounded by 10 iterations of up to 30m each (5h of agent time); cap it with --max-cost USD or --max-duration D (config max_cost, max_duration)"},
		{map[string]string{KeyMaxIterations: "3", KeyTimeout: "0"}, "no cost cap: bounded by 3 iterations with no step timeout; cap it with --max-cost USD or --max-duration D (config max_cost, max_duration)"},
		{map[string]string{KeyMaxDuration: "8h"}, "no cost cap: bounded by --max-duration 8h and 10 iterations of up to 30m each (5h of agent time); cap the spend with --max-cost USD (config max_cost)"},
		{map[string]string{KeyMaxIterations: "1"}, "no cost cap: bounded by 1 iteration of up to 30m each (30m of agent time); cap it with --max-cost USD or --max-duration D (config max_cost, max_duration)"},
		// every call of an iteration has the step's timeout, and the total
		// does not wrap around
		{map[string]string{KeyMaxIterations: "3", "retries": "2"}, "no cost cap: bounded by 3 iterations of up to 3 agent calls of 30m each with --retries 2 (4h30m of agent time); cap it with --max-cost USD or --max-duration D (config max_cost, max_duration)"},
		{map[string]string{KeyMaxIterations: "2", KeyReviewer: "r", KeyTimeout: "90s"}, "no cost cap: bounded by 2 iterations of up to 2 agent calls of 1m30s each with a review (6m of agent time); cap it with --max-cost USD or --max-duration D (config max_cost, max_duration)"},
		// the reviewer's call is retried as the step's is
		{map[string]string{KeyMaxIterations: "10", KeyReviewer: "r", "retries": "3"}, "no cost cap: bounded by 10 iterations of up to 8 agent calls of 30m each with --retries 3 and a review (40h of agent time); cap it with --max-cost USD or --max-duration D (config max_cost, max_duration)"},
		{map[string]string{KeyMaxIterations: "1000000", KeyTimeout: "1000h"}, "no cost cap: bounded by 1000000 iterations of up to 1000h each (1000000000h of agent time); cap it with --max-cost USD or --max-duration D (config max_cost, max_duration)"},
		{map[string]string{KeyMaxCost: "5"}, ""},
		{map[string]string{KeyMaxTokens: "100000"}, ""},
	} {
		if got := StartBounds(ptrSet(tt.set)); got != tt.want {
			t.Errorf("%v:\ngot  %q\nwant %q", tt.set, got, tt.want)
		}
	}
}

// The stuck agent's call, the run's last, is cut at --max-duration as a
// step is: it ran for its whole --timeout past the cap.
func TestStuckAgentUnderTheCap(t *testing.T) {
	now := time.UnixMilli(10_000_000)
	run := &record.Run{Status: "running", Settings: runconfig.MustFromMap(map[string]string{KeyMaxIterations: "1",
		KeyStuckAgent: "true", KeyMaxDuration: "30m", KeyDrivenMS: "1190000", KeyDrivenAt: "9990000"})}
	a := Decide(&Input{Run: run, Recent: []*record.IterationLog{iter(1, "fail", 0, true)}, Now: now}, Rules)
	if a.Rule != "out-of-iterations" || a.Extra["ask_hypotheses"] != "1" || a.Extra["step_timeout"] != "11m0s" {
		t.Fatalf("got %+v, want ask_hypotheses with step_timeout 11m0s (10m left + 1m grace)", a)
	}
}

// A final verification is stopped at --max-duration as the validation is:
// it ran its whole --validate-timeout past the cap.
func TestFinalVerifyUnderTheCap(t *testing.T) {
	now := time.UnixMilli(10_000_000)
	run := &record.Run{Status: "running", Settings: runconfig.MustFromMap(map[string]string{KeyFinalVerify: `["make e2e"]`,
		KeyMaxDuration: "30m", KeyDrivenMS: "1190000", KeyDrivenAt: "9990000"})}
	ph := Phases{Verify: finalverify.State{Next: "make e2e", NextIndex: 1}}
	a := Decide(&Input{Run: run, Recent: []*record.IterationLog{iter(1, "pass", 0, true)}, Now: now, Phases: ph}, Rules)
	if want := strconv.FormatInt(now.Add(11*time.Minute).UnixMilli(), 10); a.Kind != Verify || a.Extra["deadline_ms"] != want {
		t.Fatalf("got %+v, want the verification with deadline_ms %s", a, want)
	}
}
