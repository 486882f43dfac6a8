// Package hooks runs the commands a person asked to hear about a run's
// events with (--on-event CMD): each gets the event as one JSON object on
// stdin and LOOP_EVENT, LOOP_RUN_ID, LOOP_STORE in its environment, runs
// with a timeout, and its failure is logged, never fatal to the run.
package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/loopkit/loopkit/internal/lazylog"
	"github.com/loopkit/loopkit/internal/lookpath"
	"github.com/loopkit/loopkit/internal/proc"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
)

// Event names a hook can receive.
const (
	Completed     = "completed"
	Failed        = "failed"
	Stuck         = "stuck"
	Canceled      = "canceled"
	Paused        = "paused"
	RateLimited   = "rate_limited"
	Watchdog      = "watchdog"
	CostThreshold = "cost_threshold"
)

// DefaultTimeout bounds each hook command.
const DefaultTimeout = 10 * time.Second

// outputBytes is how much of a failing hook's output the log line keeps.
const outputBytes = 500

// Setting keys of a run: on_event holds the commands, one per line.
const (
	SettingCommands = "on_event"
	SettingTimeout  = "hook_timeout"
)

// Hooks are the commands of one run.
type Hooks struct {
	Commands []string
	Timeout  time.Duration
	Store    string
	// Dir is the run's work tree (--dir, or its worktree), where each
	// command runs: whoever fires it (the driver, a `loop cancel` from
	// elsewhere), a hook's `git commit` is the run's.
	Dir string
	Log lazylog.Logger
}

// FromSettings is a run's hook commands (on_event) and their timeout
// (hook_timeout; 0 is the default's).
func FromSettings(set *runconfig.Settings, storeRoot string, l lazylog.Logger) *Hooks {
	h := &Hooks{Commands: set.OnEvent, Timeout: set.HookTimeout.D(), Store: storeRoot, Dir: set.Dir, Log: l}
	if h.Timeout <= 0 {
		h.Timeout = DefaultTimeout
	}
	return h
}

// Fire runs every command for one event, one after the other, and reports
// how many failed. fields are added to the JSON object after "event" and
// "run_id".
func (h *Hooks) Fire(event, runID string, fields map[string]any) int {
	if h == nil || len(h.Commands) == 0 {
		return 0
	}
	payload := map[string]any{}
	for k, v := range fields {
		payload[k] = v
	}
	payload["event"], payload["run_id"], payload["store"] = event, runID, h.Store
	data, err := record.Marshal(payload)
	if err != nil {
		h.Log.Warn("hook payload", "event", event, "err", err)
		return len(h.Commands)
	}
	failed := 0
	for _, c := range h.Commands {
		if err := h.run(c, event, runID, append(data, '\n')); err != nil {
			failed++
			h.Log.Warn("hook failed (the run goes on)", "event", event, "hook", c, "err", err)
		}
	}
	return failed
}

// run runs one command with sh -c in its own process group, killed as a
// group at the timeout so a hook's children cannot hold the loop up.
func (h *Hooks) run(command, event, runID string, stdin []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), h.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, lookpath.Command("sh"), "-c", command)
	cmd.Stdin = bytes.NewReader(stdin)
	if fi, err := os.Stat(h.Dir); err == nil && fi.IsDir() {
		cmd.Dir = h.Dir // else (a worktree removed since) where the event is recorded
	}
	// Only the output's tail is kept: a hook printing without end (yes)
	// must not grow the recorder's memory until it is killed.
	var out tailBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = append(proc.ChildEnv(), "LOOP_EVENT="+event, "LOOP_RUN_ID="+runID, "LOOP_STORE="+h.Store)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // anything it left behind
	}
	if ctx.Err() == context.DeadlineExceeded {
		return fmt.Errorf("timed out after %s", h.Timeout)
	}
	if errors.Is(err, exec.ErrWaitDelay) {
		err = nil // it exited 0; a child it left (a notifier in the background) held its output
	}
	if err != nil {
		if why := scriptShebang(command, cmd.Dir); why != "" && cmd.ProcessState != nil && cmd.ProcessState.ExitCode() == 127 {
			return fmt.Errorf("%w: %s", err, why) // sh says only "not found"
		}
		text := strings.TrimSpace(out.String())
		if len(text) > outputBytes {
			text = "…" + strings.ToValidUTF8(text[len(text)-outputBytes:], "")
		}
		if text != "" {
			return fmt.Errorf("%w: %s", err, text)
		}
		return err
	}
	return nil
}

// scriptShebang is lookpath.Shebang's answer for a hook whose first word
// is a script's path (./notify.sh), run in dir.
func scriptShebang(command, dir string) string {
	f := strings.Fields(command)
	if len(f) == 0 || !strings.Contains(f[0], "/") {
		return ""
	}
	path := f[0]
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	if why := lookpath.Shebang(path); why != "" {
		return f[0] + ": " + why
	}
	return ""
}

// tailBuffer keeps the last outputBytes written to it (and a little more,
// so it copies rarely).
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) > outputBytes {
		p = p[len(p)-outputBytes:]
	}
	t.b = append(t.b, p...)
	if len(t.b) > 4*outputBytes {
		t.b = append(t.b[:0], t.b[len(t.b)-outputBytes:]...)
	}
	return n, nil
}

func (t *tailBuffer) String() string { return string(t.b) }

// Thresholds are the fractions of a budget a cost_threshold hook reports.
var Thresholds = []int{50, 80, 100}

// Crossed lists the thresholds (percent of limit) that spent passed when
// it grew from before to after: each is reported once, by the iteration
// that crossed it, so nothing but the log's totals is needed to know it.
func Crossed(before, after, limit float64) []int {
	if limit <= 0 {
		return nil
	}
	var out []int
	for _, p := range Thresholds {
		t := limit * float64(p) / 100
		if before < t && after >= t {
			out = append(out, p)
		}
	}
	return out
}
