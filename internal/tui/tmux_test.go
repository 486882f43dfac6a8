package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTerminal drives the full-screen view in a real terminal: tmux runs
// 'loop-view' (no arguments, so it opens the view) at 80x24 with NO_COLOR
// on a store of two runs; keys navigate to the running run, open the Logs
// and Output views and expand an iteration; capture-pane shows the lines;
// an iteration recorded meanwhile appears; q quits. LOOPKIT_TUI_SCREEN=FILE
// keeps the Logs screen (the README shows it).
func TestTerminal(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux not installed (CI installs it): the view is driven in a terminal there")
	}
	root, _ := filepath.Abs("../..")
	dir := t.TempDir()
	bin := commandsDir(t)
	storeDir := filepath.Join(dir, ".loop")
	record := func(args []string, stdin string) {
		t.Helper()
		cmd := exec.Command(filepath.Join(bin, "loop-record"), args...)
		cmd.Env = append(os.Environ(), "LOOP_STORE="+storeDir)
		cmd.Stdin = strings.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("loop-record %v: %v\n%s", args, err, out)
		}
	}
	gotest, err := os.ReadFile(filepath.Join(root, "internal/failure/testdata/gotest-plain.out"))
	if err != nil {
		t.Fatal(err)
	}
	record([]string{"--new-run", "--run", "r-live", "--name", "live"}, "")
	record([]string{"--run", "r-live", "--status", "running"}, "")
	record([]string{"--run", "r-live"}, stepLine()+"\n"+validation("go test ./...", 1, string(gotest)))
	record([]string{"--run", "r-live"}, validation("go test ./...", 1, "--- FAIL: TestRoundTripHour (0.00s)\nFAIL\n"))
	record([]string{"--run", "r-live"}, validation("go test ./...", 0, "ok  \texample.com/calc\t0.004s\n"))
	time.Sleep(20 * time.Millisecond) // the newer run is listed first
	record([]string{"--new-run", "--run", "r-done", "--name", "done"}, "")
	record([]string{"--run", "r-done"}, validation("make test", 0, "all good\n"))
	record([]string{"--run", "r-done", "--status", "completed"}, "")

	script := fmt.Sprintf("env NO_COLOR=1 LOOP_STORE=%q %q; echo VIEW-EXITED-$?; sleep 60", storeDir, filepath.Join(bin, "loop-view"))
	tm := startTmux(t, tmux, script)
	capture, keys, waitFor := tm.capture, tm.keys, tm.waitFor

	screen := waitFor("runs list", has("r-done", "r-live", "> r-done"))
	checkScreen(t, screen)
	keys("j")
	waitFor("cursor on r-live", has("> r-live"))
	keys("Enter")
	// a running run opens on its live step; no driver runs this one
	waitFor("live step", has("*[s]tep*", "no step has started"))
	keys("L")
	screen = waitFor("Logs view", has("*[L]ogs*", "following", "[1] go test ./... — exit 1", "2 failing: TestFormat", "> [3] go test ./... — exit 0"))
	checkScreen(t, screen)

	// An iteration recorded while the view is open shows up, selected.
	record([]string{"--run", "r-live"}, validation("go test ./...", 2, "# example.com/calc\n./calc.go:3:1: syntax error\n"))
	screen = waitFor("the new iteration", has("> [4] go test ./... — exit 2"))
	if keep := os.Getenv("LOOPKIT_TUI_SCREEN"); keep != "" {
		if err := os.WriteFile(keep, []byte(screen), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// The Output view: headings, the first 200 characters; enter expands.
	keys("o")
	waitFor("Output view", has("*[o]utput*", "## Iteration 4 — Exit 2 —", "./calc.go:3:1: syntax error"))
	keys("g")
	screen = waitFor("top of the Output view", has("> ## Iteration 1 — Exit 1 —", "--- FAIL: TestFormat (0.00s)"))
	if strings.Contains(screen, "calc/util") {
		t.Fatalf("collapsed iteration shows more than its first 200 characters:\n%s", screen)
	}
	keys("Tab")
	waitFor("expanded iteration", has("### stdout", "RoundTripHour(19)"))
	keys("space")
	waitFor("the end of the output, scrolled to", has("example.com/calc/util"))

	// Back in the Logs view the expanded iteration shows its tool calls.
	keys("L")
	keys("g")
	waitFor("tool calls", has("Edit ok: calc.go", "### stdout"))
	checkScreen(t, capture())

	// A jq filter keeps the failing iterations only.
	keys("/")
	keys(".exit_code == 2", "Enter")
	screen = waitFor("filtered list", has("matching .exit_code == 2", "[4] go test ./... — exit 2"))
	if strings.Contains(screen, "[1] go test") {
		t.Fatalf("filter let iteration 1 through:\n%s", screen)
	}

	keys("q")
	waitFor("the view to quit", has("VIEW-EXITED-0"))
}

// term is a tmux server of the test's own (its own -L socket, killed at
// the end) running one program at 80x24.
type term struct {
	t              *testing.T
	tmux, sock, id string
}

func startTmux(t *testing.T, tmux, script string) *term {
	t.Helper()
	tm := &term{t: t, tmux: tmux, sock: fmt.Sprintf("loopkit-test-%d-%d", os.Getpid(), time.Now().UnixNano()), id: "tui"}
	if out, err := tm.cmd("new-session", "-d", "-s", tm.id, "-x", "80", "-y", "24", script).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() { tm.cmd("kill-server").Run() })
	return tm
}

func (tm *term) cmd(args ...string) *exec.Cmd {
	return exec.Command(tm.tmux, append([]string{"-L", tm.sock}, args...)...)
}

func (tm *term) capture() string {
	out, _ := tm.cmd("capture-pane", "-t", tm.id, "-p").Output()
	return string(out)
}

func (tm *term) keys(k ...string) {
	tm.t.Helper()
	if out, err := tm.cmd(append([]string{"send-keys", "-t", tm.id}, k...)...).CombinedOutput(); err != nil {
		tm.t.Fatalf("send-keys %v: %v\n%s", k, err, out)
	}
}

// waitFor polls the screen until ok says yes, for at most 2 minutes.
func (tm *term) waitFor(what string, ok func(string) bool) string {
	tm.t.Helper()
	deadline := time.Now().Add(2 * time.Minute) // a bound for a loaded machine, not a wait
	for {
		s := tm.capture()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("no %s on the screen:\n%s", what, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func has(subs ...string) func(string) bool {
	return func(s string) bool {
		for _, sub := range subs {
			if !strings.Contains(s, sub) {
				return false
			}
		}
		return true
	}
}

// checkScreen: nothing wider than 80 columns.
func checkScreen(t *testing.T, s string) {
	t.Helper()
	for _, l := range strings.Split(s, "\n") {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("line of %d characters at 80 columns: %q", n, l)
		}
	}
}

func validation(cmd string, code int, stdout string) string {
	return fmt.Sprintf(`{"type":"validation","command":%q,"exit_code":%d,"stdout":%q,"stderr":"","duration_ms":%d,"files_changed":["calc.go"]}`,
		cmd, code, stdout, 100+code)
}

func stepLine() string {
	return `{"type":"step","command":"claude -p","phase":"implementation","exit_code":0,"duration_ms":5000,"final_message":"Changed Format.","tool_calls":[{"tool_name":"Edit","arguments_summary":"calc.go","result_summary":"ok","is_error":false}],"completed":false}`
}
