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
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
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

// TestTailFitsTerminalWidth: loop-view tail cuts an agent's text to the
// terminal's width in cells, between grapheme clusters. Cut at width
// runes, a line of CJK took two rows of a 40-column terminal, and a line
// of decomposed accents (NFD, as macOS writes) half of one.
func TestTailFitsTerminalWidth(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := append(withoutEnv(os.Environ(), "CLICOLOR_FORCE"), "LOOP_STORE="+filepath.Join(dir, ".loop"), "NO_COLOR=1")
	run := func(name string, args ...string) {
		c := exec.Command(name, args...)
		c.Dir, c.Env = dir, env
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	run("loop-record", "new", "--run", "p1")
	m, s := openPTY(t)
	defer m.Close()
	if err := unix.IoctlSetWinsize(int(m.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 40}); err != nil {
		t.Fatal(err)
	}
	tail := exec.Command("loop-view", "tail", "--quiet", "p1")
	tail.Dir, tail.Env = dir, env
	tail.Stdin, tail.Stdout, tail.Stderr = s, s, s
	tail.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := tail.Start(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	var mu sync.Mutex
	var out bytes.Buffer
	go func() { // EIO once tail is gone
		buf := make([]byte, 4096)
		for {
			n, err := m.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			if bytes.Count(out.Bytes(), []byte("…")) >= 2 { // both texts shown
				os.WriteFile(filepath.Join(dir, "seen"), nil, 0o600)
			}
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	cjk := strings.Repeat("日本語のテキスト", 10)
	nfd := strings.Repeat("e\u0301", 100)
	agent := `printf '{"type":"assistant","message":{"content":[{"type":"text","text":"%s"}]}}\n' "$0" "$1"; ` +
		`for i in $(seq 600); do [ -e seen ] && break; sleep 0.05; done`
	run("loop-step", "--run", "p1", "--prompt", os.DevNull, "--", "sh", "-c", agent, cjk, nfd)
	run("loop-record", "status", "completed", "--run", "p1")
	waited := make(chan error, 1)
	go func() { waited <- tail.Wait() }()
	select {
	case <-waited:
	case <-time.After(30 * time.Second):
		tail.Process.Kill()
		t.Fatal("loop-view tail still running after its run ended")
	}
	mu.Lock()
	defer mu.Unlock()
	lines := strings.Split(strings.TrimRight(out.String(), "\r\n"), "\r\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "日本語") || !strings.HasPrefix(lines[1], "e\u0301") {
		t.Fatalf("tail printed %q, want the two texts", lines)
	}
	for _, l := range lines {
		if w := ansi.StringWidthWc(l); w > 40 || w < 38 || !strings.HasSuffix(l, "…") || strings.Contains(l, "e…") {
			t.Errorf("%q: %d cells on a 40-column terminal, want 38-40 ending in … after a whole character", l, w)
		}
	}
}

// TestTailFollowsResize: loop-view tail cuts each line to the width the
// terminal has when the line comes: it read the width once, so a window
// narrowed during a step's minutes got lines wider than itself.
func TestTailFollowsResize(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := append(withoutEnv(os.Environ(), "CLICOLOR_FORCE"), "LOOP_STORE="+filepath.Join(dir, ".loop"), "NO_COLOR=1")
	run := func(name string, args ...string) {
		c := exec.Command(name, args...)
		c.Dir, c.Env = dir, env
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	run("loop-record", "new", "--run", "p1")
	m, s := openPTY(t)
	defer m.Close()
	resize := func(cols uint16) {
		if err := unix.IoctlSetWinsize(int(m.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: cols}); err != nil {
			t.Error(err)
		}
	}
	resize(60)
	tail := exec.Command("loop-view", "tail", "--quiet", "p1")
	tail.Dir, tail.Env = dir, env
	tail.Stdin, tail.Stdout, tail.Stderr = s, s, s
	tail.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := tail.Start(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	var mu sync.Mutex
	var out bytes.Buffer
	go func() { // EIO once tail is gone
		buf := make([]byte, 4096)
		resized := false
		for {
			n, err := m.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			if c := bytes.Count(out.Bytes(), []byte("…")); c >= 1 && !resized {
				resize(30) // the window narrowed after the first line
				resized = true
				os.WriteFile(filepath.Join(dir, "resized"), nil, 0o600)
			} else if c >= 2 {
				os.WriteFile(filepath.Join(dir, "seen"), nil, 0o600)
			}
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	text := strings.Repeat("abcdefghij", 10)
	wait := func(f string) string {
		return `for i in $(seq 600); do [ -e ` + f + ` ] && break; sleep 0.05; done; `
	}
	line := `printf '{"type":"assistant","message":{"content":[{"type":"text","text":"%s"}]}}\n' "$0"; `
	run("loop-step", "--run", "p1", "--prompt", os.DevNull, "--", "sh", "-c", line+wait("resized")+line+wait("seen"), text)
	run("loop-record", "status", "completed", "--run", "p1")
	waited := make(chan error, 1)
	go func() { waited <- tail.Wait() }()
	select {
	case <-waited:
	case <-time.After(30 * time.Second):
		tail.Process.Kill()
		t.Fatal("loop-view tail still running after its run ended")
	}
	mu.Lock()
	defer mu.Unlock()
	lines := strings.Split(strings.TrimRight(out.String(), "\r\n"), "\r\n")
	if len(lines) != 2 {
		t.Fatalf("tail printed %q, want the text twice", lines)
	}
	for i, cols := range []int{60, 30} {
		if w := ansi.StringWidthWc(lines[i]); w > cols || w < cols-2 {
			t.Errorf("line %d %q: %d cells on a %d-column terminal", i+1, lines[i], w, cols)
		}
	}
}

// TestTailNoticeEscaped: loop-view tail's retry notice quotes the agent's
// own words ("Reconnecting... 2/5 (…)"); the agent is hostile, and its
// escapes set the window title and cleared the screen from that line.
func TestTailNoticeEscaped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := append(withoutEnv(os.Environ(), "CLICOLOR_FORCE"), "LOOP_STORE="+filepath.Join(dir, ".loop"), "NO_COLOR=1")
	run := func(name string, args ...string) {
		c := exec.Command(name, args...)
		c.Dir, c.Env = dir, env
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	run("loop-record", "new", "--run", "p1")
	m, s := openPTY(t)
	defer m.Close()
	tail := exec.Command("loop-view", "tail", "p1")
	tail.Dir, tail.Env = dir, env
	tail.Stdin, tail.Stdout, tail.Stderr = s, s, s
	tail.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := tail.Start(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	var mu sync.Mutex
	var out bytes.Buffer
	go func() { // EIO once tail is gone
		buf := make([]byte, 4096)
		for {
			n, err := m.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			if bytes.Contains(out.Bytes(), []byte("agent retrying")) {
				os.WriteFile(filepath.Join(dir, "seen"), nil, 0o600)
			}
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	agent := `echo '{"type":"error","message":"Reconnecting... 2/5 (\u001b]0;PWN\u0007\u001b[2J boom)"}'; ` +
		`for i in $(seq 600); do [ -e seen ] && break; sleep 0.05; done`
	run("loop-step", "--run", "p1", "--prompt", os.DevNull, "--", "sh", "-c", agent)
	run("loop-record", "status", "completed", "--run", "p1")
	waited := make(chan error, 1)
	go func() { waited <- tail.Wait() }()
	select {
	case <-waited:
	case <-time.After(30 * time.Second):
		tail.Process.Kill()
		t.Fatal("loop-view tail still running after its run ended")
	}
	mu.Lock()
	defer mu.Unlock()
	if bytes.IndexByte(out.Bytes(), 0x1b) >= 0 || !bytes.Contains(out.Bytes(), []byte(`agent retrying: Reconnecting... 2/5 (\x1b]0;PWN`)) {
		t.Errorf("an escape reached the terminal, or no notice:\n%q", out.String())
	}
}
