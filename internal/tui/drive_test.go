package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/store"
)

// agentScript is the test's agent: it says what it does, prints an
// overloaded API's retry notice (Claude Code's api_retry), marks its call
// started and waits for the test to release it, then fixes a bug as the
// demo agent does.
const agentScript = `call=$(( $(cat "$T/calls" 2>/dev/null || echo 0) + 1 ))
echo $call > "$T/calls"
echo '{"type":"system","subtype":"init","session_id":"s-1","model":"test"}'
echo '{"type":"assistant","message":{"content":[{"type":"text","text":"Looking for the bug, call '$call'"}]},"session_id":"s-1"}'
echo '{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":9100,"error_status":529,"error":"overloaded","session_id":"s-1"}'
: > "$T/started.$call"
i=0
while [ ! -e "$T/release.$call" ] && [ $i -lt 2400 ]; do sleep 0.05; i=$((i+1)); done
exec "$ROOT/scripts/demo-agent"
`

// TestTerminalDrivesRun drives a real run from the full-screen view in
// tmux at 80x24 with NO_COLOR: the live step shows the agent's message and
// its retry notice while the agent works; ? lists the keys; p then y
// pauses the run (the driver stops after its step, exit 75); an
// iteration opens to its final message and diff; r then y resumes it (a
// driver started in the background); C then y cancels it.
func TestTerminalDrivesRun(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux not installed (CI installs it): the view is driven in a terminal there")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root, _ := filepath.Abs("../..")
	dir := t.TempDir()
	bin := commandsDir(t) // scripts/loop beside them, as make install puts it
	ws := filepath.Join(dir, "ws")
	if out, err := exec.Command("cp", "-r", filepath.Join(root, "testdata/demo"), ws).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	git := func(args ...string) {
		t.Helper()
		c := exec.Command("git", args...)
		c.Dir = ws
		c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-qm", "init")
	agentPath := filepath.Join(dir, "agent.sh")
	if err := os.WriteFile(agentPath, []byte(strings.NewReplacer("$T", dir, "$ROOT", root).Replace(agentScript)), 0o755); err != nil {
		t.Fatal(err)
	}
	// the machine's state of its own: with the user's own loops holding
	// every concurrency slot, the run waited for one, and the test failed
	xdgRun, xdgState := filepath.Join(dir, "xdg-run"), filepath.Join(dir, "xdg-state")
	os.Mkdir(xdgRun, 0o700)
	env := append(os.Environ(), "LOOP_BIN="+bin, "PATH="+bin+":"+os.Getenv("PATH"),
		"LOOP_STORE="+filepath.Join(ws, ".loop"), "NO_COLOR=1", "XDG_RUNTIME_DIR="+xdgRun, "XDG_STATE_HOME="+xdgState)
	wait := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(2 * time.Minute); !ok(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("waited 2 minutes for %s", what)
			}
		}
	}
	exists := func(p string) func() bool {
		return func() bool { _, err := os.Stat(p); return err == nil }
	}
	release := func(n int) { os.WriteFile(filepath.Join(dir, fmt.Sprintf("release.%d", n)), nil, 0o644) }

	drv := exec.Command(filepath.Join(bin, "loop"), "run", "--prompt", "TASK.md",
		"--validate", "sh "+filepath.Join(root, "testdata/loop/check.sh"), "--", "sh", agentPath)
	drv.Dir, drv.Env = ws, env
	out, err := os.Create(filepath.Join(dir, "run.out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	drvErr, _ := os.Create(filepath.Join(dir, "run.err"))
	defer drvErr.Close()
	drv.Stdout, drv.Stderr = out, drvErr
	drv.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := drv.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- drv.Wait() }()
	var id string
	t.Cleanup(func() {
		for n := 1; n <= 5; n++ {
			release(n)
		}
		if id != "" { // stops whichever driver holds the run, the view's included
			c := exec.Command(filepath.Join(bin, "loop-drive"), "--cancel", "--run", id)
			c.Env = env
			c.Run()
		}
		syscall.Kill(-drv.Process.Pid, syscall.SIGKILL)
		<-exited
	})
	t.Cleanup(func() {
		if t.Failed() {
			for _, f := range []string{filepath.Join(dir, "run.err"), filepath.Join(ws, ".loop/runs", id, "resume.log")} {
				data, _ := os.ReadFile(f)
				t.Logf("%s:\n%s", f, data)
			}
		}
	})
	wait("the agent's first call", exists(filepath.Join(dir, "started.1")))
	data, _ := os.ReadFile(filepath.Join(dir, "run.out"))
	id = strings.TrimSpace(strings.SplitN(string(data), "\n", 2)[0])
	if store.ValidRunID(id) != nil {
		t.Fatalf("no run id printed by loop run: %q", data)
	}

	script := fmt.Sprintf("cd %q && env NO_COLOR=1 XDG_RUNTIME_DIR=%q XDG_STATE_HOME=%q LOOP_STORE=%q %q; echo VIEW-EXITED-$?; sleep 60",
		dir, xdgRun, xdgState, filepath.Join(ws, ".loop"), filepath.Join(bin, "loop-view"))
	tm := startTmux(t, tmux, script)
	tm.waitFor("runs list", has("> "+id, "running"))
	checkScreen(t, tm.capture())
	tm.keys("Enter")
	screen := tm.waitFor("live step", has("*[s]tep*", "agent running", "Looking for the bug, call 1",
		"agent retrying: overloaded (529), attempt 1/10, next in 9 s"))
	checkScreen(t, screen)

	tm.keys("?")
	tm.waitFor("help", has("p  pause the run", "C  cancel the run", "r  resume the run", "y confirms"))
	tm.keys("x")
	tm.waitFor("live step again", func(s string) bool { return !strings.Contains(s, "y confirms") && strings.Contains(s, "*[s]tep*") })

	// pause: asked, refused, asked again and confirmed
	tm.keys("p")
	tm.waitFor("pause question", has("pause run "+id))
	tm.keys("n")
	tm.waitFor("pause not done", has("pause of run "+id))
	tm.keys("p")
	tm.waitFor("pause question", has("y: yes"))
	tm.keys("y")
	tm.waitFor("run paused", has(id+" · paused"))
	release(1)
	select {
	case err := <-exited:
		exited <- err
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 75 {
			t.Fatalf("paused driver: %v, want exit 75", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the paused driver did not stop after its step")
	}

	// the iteration: its Logs line, then its final message and diff
	tm.keys("L")
	tm.waitFor("Logs view", has("*[L]ogs*", "[1] sh "))
	tm.keys("Enter")
	screen = tm.waitFor("iteration page", has("final message of the agent:", "Fixed the add bug in calc.go",
		"return a - b // BUG(add)", "+       return a + b", "diff (loop-view diff"))
	checkScreen(t, screen)
	tm.keys("Escape")
	tm.waitFor("Logs view again", has("*[L]ogs*"))

	// resume: a driver starts in the background and the agent's next call
	tm.keys("r")
	tm.waitFor("resume question", has("resume run "+id))
	tm.keys("y")
	wait("the agent's second call", exists(filepath.Join(dir, "started.2")))
	tm.keys("s")
	tm.waitFor("the second call live", has(id+" · running", "Looking for the bug, call 2"))
	// 0600 as every file of the store: a driver's output can hold secrets
	if fi, err := os.Stat(filepath.Join(ws, ".loop/runs", id, "resume.log")); err != nil {
		t.Fatalf("no resume.log for the driver the view started: %v", err)
	} else if fi.Mode().Perm() != 0o600 {
		t.Fatalf("resume.log has mode %04o, want 0600", fi.Mode().Perm())
	}

	// cancel: the view's driver is stopped and the run recorded canceled
	tm.keys("C")
	tm.waitFor("cancel question", has("cancel run "+id))
	tm.keys("y")
	tm.waitFor("run canceled", has(id+" · canceled", "run "+id))
	st, err := store.Open(filepath.Join(ws, ".loop"))
	if err != nil {
		t.Fatal(err)
	}
	if run, err := st.ReadRun(id); err != nil || run.Status != "canceled" {
		t.Fatalf("run after C y: %+v, %v", run, err)
	}
	tm.keys("q")
	tm.waitFor("the view to quit", has("VIEW-EXITED-0"))
}
