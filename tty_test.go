//go:build linux

package loopkit_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair; nobody answers on the master side,
// like a terminal (or `script`) that ignores colour and cursor queries.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m, s
}

// queries are the escapes a program sends to ask the terminal something:
// OSC 10/11 (foreground/background colour), DSR (cursor position), DA1.
var queries = []string{"\x1b]10;?", "\x1b]11;?", "\x1b[6n", "\x1b[c", "\x1b[0c"}

// runOnPTY runs a command with stdin, stdout and stderr on a fresh terminal
// that never answers, and returns what it wrote and how long it took.
func runOnPTY(t *testing.T, dir string, env []string, name string, args ...string) ([]byte, time.Duration) {
	t.Helper()
	m, s := openPTY(t)
	defer m.Close()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s, s, s
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	var out bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&out, m); close(done) }() // EIO once the child is gone
	waited := make(chan struct{})
	go func() { cmd.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-waited
		t.Fatalf("%s %s still running after 30s", name, strings.Join(args, " "))
	}
	took := time.Since(start)
	m.SetReadDeadline(time.Now().Add(2 * time.Second))
	<-done
	return out.Bytes(), took
}

// TestNoTerminalQueries: on a terminal that does not answer, a command that
// prints and exits neither sends a query nor waits for an answer.
func TestNoTerminalQueries(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st := filepath.Join(dir, ".loop")
	base := append(os.Environ(), "LOOP_STORE="+st, "TERM=xterm-256color", "COLORTERM=truecolor")
	base = withoutEnv(base, "NO_COLOR", "CI")
	// A store with a run and a failing iteration, so runs and logs print
	// lines and warnings.
	sh := func(script string) {
		c := exec.Command("bash", "-c", script)
		c.Dir, c.Env = dir, base
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
	}
	sh(`loop-record --new-run --run r >/dev/null && { loop-validate --run r -- false || true; } | loop-record --run r >/dev/null`)
	for _, tc := range []struct {
		env   []string
		args  []string
		color int // 1: must colour, -1: must not, 0: either
	}{
		{nil, []string{"loop-view", "--help"}, 0},
		{nil, []string{"loop-step", "--help"}, 0},
		{nil, []string{"loop-view", "runs"}, 0},
		{nil, []string{"loop-view", "logs", "r"}, 1},
		{nil, []string{"loop-view", "logs", "-v", "r"}, 0},
		{nil, []string{"loop-view", "describe", "r"}, 0},
		{nil, []string{"loop-validate", "--run", "r", "--", "sh", "-c", "echo boom; exit 3"}, 0},
		{nil, []string{"loop-view", "logs", "nosuchrun"}, 0},
		{[]string{"LOOP_LOG_LEVEL=debug"}, []string{"loop-clean", "--dry-run"}, 0},
		{[]string{"NO_COLOR=1"}, []string{"loop-view", "logs", "r"}, -1},
		{[]string{"NO_COLOR=1", "LOOP_LOG_LEVEL=debug"}, []string{"loop-clean", "--dry-run"}, -1},
		{[]string{"TERM=dumb"}, []string{"loop-view", "logs", "r"}, -1},
		{[]string{"CLICOLOR_FORCE=1"}, []string{"loop-view", "logs", "r"}, 1},
	} {
		out, took := runOnPTY(t, dir, append(append([]string{}, base...), tc.env...), tc.args[0], tc.args[1:]...)
		for _, q := range queries {
			if bytes.Contains(out, []byte(q)) {
				t.Errorf("%v %s: wrote the terminal query %q:\n%q", tc.env, strings.Join(tc.args, " "), q, out)
			}
		}
		if colored := bytes.Contains(out, []byte("\x1b[")); tc.color != 0 && colored != (tc.color > 0) {
			t.Errorf("%v %s: coloured=%v, want %v:\n%q", tc.env, strings.Join(tc.args, " "), colored, tc.color > 0, out)
		}
		// The defect was a 5 s wait per unanswered query; a generous
		// bound keeps a loaded machine from failing a correct program.
		if took > 3*time.Second {
			t.Errorf("%v %s: took %v on a silent terminal", tc.env, strings.Join(tc.args, " "), took)
		}
		t.Logf("%v %s: %v, %d bytes", tc.env, strings.Join(tc.args, " "), took.Round(time.Millisecond), len(out))
	}
}

// TestHostileOutputOnTerminal: what the validation printed (the agent
// writes the tests) reaches a person's terminal shown, not obeyed, from
// every command that prints it there, JSON and the stored log included
// (U+009B escaped as ESC is); piped, loop-progress keeps its bytes for
// the prompt.
func TestHostileOutputOnTerminal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := append(withoutEnv(os.Environ(), "CLICOLOR_FORCE"), "LOOP_STORE="+filepath.Join(dir, ".loop"), "NO_COLOR=1")
	evil := `printf 'FAIL \033]0;PWN\007\033[2J \302\2332J \2331m\n'; exit 1`
	c := exec.Command("bash", "-c", `loop-record --new-run --run r >/dev/null && { loop-validate --run r -- sh -c "$0" || true; } | loop-record --run r >/dev/null`, evil)
	c.Dir, c.Env = dir, env
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, args := range [][]string{{"loop-progress", "r"}, {"loop-progress", "r", "--excerpt", "failures"}, {"loop-view", "output", "r"},
		{"loop-view", "logs", "-v", "r"}, {"loop-view", "logs", "--json", "r"}, {"loop-view", "logs", "--jq", ".stdout", "r"}, {"cat", ".loop/runs/r/iterations.jsonl"}} {
		out, _ := runOnPTY(t, dir, env, args[0], args[1:]...)
		if bytes.IndexByte(out, 0x1b) >= 0 || bytes.IndexByte(out, 0x9b) >= 0 || !bytes.Contains(out, []byte("FAIL")) {
			t.Errorf("%s: a control byte reached the terminal: %q", strings.Join(args, " "), out)
		}
	}
	c = exec.Command("loop-progress", "r")
	c.Dir, c.Env = dir, env
	if out, err := c.Output(); err != nil || !bytes.Contains(out, []byte("\x1b]0;PWN\x07")) {
		t.Errorf("loop-progress piped: %v, want the bytes as stored:\n%q", err, out)
	}
}

// TestChildrenHaveNoTerminal: the agent and the validation run in a session
// of their own, with no controlling terminal. On the person's terminal, an
// agent could otherwise push keys into its input (TIOCSTI) that the
// person's shell runs once the loop ends, or stop the loop reading it.
func TestChildrenHaveNoTerminal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := append(os.Environ(), "LOOP_STORE="+filepath.Join(dir, ".loop"))
	probe := `(: </dev/tty) 2>/dev/null; echo "tty-open-status=$?"`
	for _, args := range [][]string{
		{"loop-validate", "--no-store", "--shell", probe},
		{"loop-step", "--no-store", "--prompt", "/dev/null", "--", "sh", "-c", probe},
	} {
		out, _ := runOnPTY(t, dir, env, args[0], args[1:]...)
		if !regexp.MustCompile(`tty-open-status=[1-9]`).Match(out) {
			t.Errorf("%s: the child could open the terminal (or did not run):\n%s", args[0], out)
		}
	}
}
