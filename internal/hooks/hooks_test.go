package hooks

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/log"

	"github.com/loopkit/loopkit/internal/procid"
	"github.com/loopkit/loopkit/internal/runconfig"
)

func TestFire(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "got")
	var logs bytes.Buffer
	set := runconfig.MustFromMap(map[string]string{
		SettingCommands: "cat > '" + out + "'; echo \"$LOOP_EVENT $LOOP_RUN_ID $LOOP_STORE\" >> '" + out + "'\n" +
			"echo 'no webhook configured' >&2; exit 3\n" +
			"sleep 30 & sleep 30",
		SettingTimeout: "300ms",
	})
	h := FromSettings(&set, "/s/.loop", log.New(&logs))
	if n := h.Fire(Completed, "r1", map[string]any{"status": "completed", "iteration": 3}); n != 2 {
		t.Errorf("%d failed, want 2 (exit 3 and the timeout)", n)
	}
	data, _ := os.ReadFile(out)
	lines := strings.SplitN(string(data), "\n", 2)
	var got map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &got); err != nil {
		t.Fatalf("stdin %q: %v", lines[0], err)
	}
	want := map[string]any{"event": "completed", "run_id": "r1", "store": "/s/.loop", "status": "completed", "iteration": 3.0}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("stdin %v, want %v", got, want)
	}
	if strings.TrimSpace(lines[1]) != "completed r1 /s/.loop" {
		t.Errorf("environment %q", lines[1])
	}
	for _, w := range []string{"no webhook configured", "timed out after 300ms"} {
		if !strings.Contains(logs.String(), w) {
			t.Errorf("log lacks %q:\n%s", w, logs.String())
		}
	}
}

func TestNoHooks(t *testing.T) {
	h := FromSettings(&runconfig.Settings{}, "", log.New(os.Stderr))
	if len(h.Commands) != 0 || h.Timeout != DefaultTimeout || h.Fire(Stuck, "r", nil) != 0 {
		t.Errorf("%+v", h)
	}
	if _, err := runconfig.FromMap(map[string]string{SettingTimeout: "soon"}); err == nil {
		t.Error("hook_timeout=soon accepted")
	}
	set := runconfig.MustFromMap(map[string]string{SettingTimeout: "15"})
	if h := FromSettings(&set, "", nil); h.Timeout != 15*time.Second {
		t.Errorf("hook_timeout=15 is %s", h.Timeout)
	}
}

func TestCrossed(t *testing.T) {
	for _, c := range []struct {
		before, after, limit float64
		want                 []int
	}{
		{0, 0.4, 1, nil},
		{0.4, 0.5, 1, []int{50}},
		{0.4, 0.9, 1, []int{50, 80}},
		{0.5, 1.2, 1, []int{80, 100}},
		{1.2, 1.5, 1, nil},
		{0, 5, 0, nil},
	} {
		if got := Crossed(c.before, c.after, c.limit); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Crossed(%v, %v, %v) = %v, want %v", c.before, c.after, c.limit, got, c.want)
		}
	}
}

// A hook that floods its output (64 MB here; `yes` for the whole timeout
// is gigabytes) is kept to its last lines: the recorder's memory does not
// grow with it, and its failure is one warning.
func TestFloodingHook(t *testing.T) {
	var logs bytes.Buffer
	set := runconfig.MustFromMap(map[string]string{
		SettingCommands: "head -c 67108864 /dev/zero | tr '\\0' y; echo last words; exit 1",
		SettingTimeout:  "60s",
	})
	h := FromSettings(&set, "/s/.loop", log.New(&logs))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if n := h.Fire(CostThreshold, "r1", map[string]any{"percent": 50}); n != 1 {
		t.Fatalf("%d failed, want 1", n)
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("firing the hook allocated %d MB", grew>>20)
	}
	if !strings.Contains(logs.String(), "last words") || logs.Len() > 2000 {
		t.Errorf("log %d bytes: %.300s", logs.Len(), logs.String())
	}
}

// A hook that starts a notifier in the background and exits 0 succeeded:
// the child holding its output was reported as a failure ("WaitDelay
// expired before I/O complete"). What it left is still stopped.
func TestHookLeavesAChild(t *testing.T) {
	var logs bytes.Buffer
	pidFile := filepath.Join(t.TempDir(), "pid")
	set := runconfig.MustFromMap(map[string]string{
		SettingCommands: "sleep 30 & echo $! > '" + pidFile + "'; echo notifying",
	})
	h := FromSettings(&set, "/s/.loop", log.New(&logs))
	if n := h.Fire(Completed, "r1", nil); n != 0 {
		t.Errorf("%d failed, want 0: %s", n, logs.String())
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if pid <= 0 {
		t.Fatalf("pid %q", data)
	}
	for end := time.Now().Add(10 * time.Second); procid.Running(pid); { // SIGKILL is sent, not yet acted on
		if time.Now().After(end) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the hook's child %d is still running", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A hook runs in the run's work tree, wherever the event is recorded
// from: the README's "commit the work when the run completes" ran git in
// the caller's directory (another repository, for a run given --dir or
// --worktree, or a `loop cancel` typed elsewhere).
func TestHookRunsInTheWorkTree(t *testing.T) {
	work, out := t.TempDir(), filepath.Join(t.TempDir(), "pwd")
	set := runconfig.MustFromMap(map[string]string{SettingCommands: "pwd -P > '" + out + "'"})
	set.Dir = work
	var logs bytes.Buffer
	if n := FromSettings(&set, "/s/.loop", log.New(&logs)).Fire(Completed, "r1", nil); n != 0 {
		t.Fatalf("%d failed: %s", n, logs.String())
	}
	data, _ := os.ReadFile(out)
	want, _ := filepath.EvalSymlinks(work)
	if got := strings.TrimSpace(string(data)); got != want {
		t.Errorf("hook ran in %s, want the work tree %s", got, want)
	}
	set.Dir = filepath.Join(work, "gone") // a worktree removed since: it still runs
	if n := FromSettings(&set, "/s/.loop", log.New(&logs)).Fire(Completed, "r1", nil); n != 0 {
		t.Errorf("%d failed: %s", n, logs.String())
	}
}

// A hook script saved with CRLF line ends failed every event with sh's
// "./notify.sh: not found", the file right there: its #! line is named.
func TestHookCRLFScriptNamed(t *testing.T) {
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "notify.sh"), []byte("#!/bin/sh\r\necho sent\r\n"), 0o755)
	set := runconfig.MustFromMap(map[string]string{SettingCommands: "./notify.sh --to ops"})
	set.Dir = work
	var logs bytes.Buffer
	if n := FromSettings(&set, "/s/.loop", log.New(&logs)).Fire(Completed, "r1", nil); n != 1 {
		t.Fatalf("%d failed, want 1: %s", n, logs.String())
	}
	if !strings.Contains(logs.String(), `./notify.sh: its #! line ends in a carriage return`) {
		t.Errorf("log does not name the #! line:\n%s", logs.String())
	}
}
