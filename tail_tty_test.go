//go:build linux

package loopkit_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/sys/unix"
)

// ptyTail is loop-view tail on a pseudo-terminal, following run p1 of a
// store of its own in dir.
type ptyTail struct {
	t   *testing.T
	dir string
	env []string
	m   *os.File
}

// run runs a loopkit command on the tail's store, failing the test if it fails.
func (p *ptyTail) run(name string, args ...string) {
	p.t.Helper()
	c := exec.Command(name, args...)
	c.Dir, c.Env = p.dir, p.env
	if out, err := c.CombinedOutput(); err != nil {
		p.t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

// resize sets the terminal's width.
func (p *ptyTail) resize(cols uint16) {
	if err := unix.IoctlSetWinsize(int(p.m.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: cols}); err != nil {
		p.t.Error(err)
	}
}

// mark makes the file name in dir, which the agent waits for (waitFor).
func (p *ptyTail) mark(name string) { os.WriteFile(filepath.Join(p.dir, name), nil, 0o600) }

// waitFor is sh that waits (at most 30 s) for the file name mark makes.
func waitFor(name string) string {
	return `for i in $(seq 600); do [ -e ` + name + ` ] && break; sleep 0.05; done; `
}

// tailOnPTY starts `loop-view tail ARGS p1` on a terminal of cols columns
// (0: the size a new terminal has),
// runs one step of p1 with the sh script agent (its $0, $1... args) and
// completes the run; watch sees all tail printed so far after each read.
// It returns what tail printed, once tail has ended with its run.
func tailOnPTY(t *testing.T, cols uint16, tailArgs []string, watch func(p *ptyTail, out []byte), agent string, args ...string) []byte {
	t.Helper()
	dir := t.TempDir()
	p := &ptyTail{t: t, dir: dir, env: append(withoutEnv(os.Environ(), "CLICOLOR_FORCE"), "LOOP_STORE="+filepath.Join(dir, ".loop"), "NO_COLOR=1")}
	p.run("loop-record", "new", "--run", "p1")
	m, s := openPTY(t)
	defer m.Close()
	p.m = m
	if cols > 0 {
		p.resize(cols)
	}
	tail := exec.Command("loop-view", append(append([]string{"tail"}, tailArgs...), "p1")...)
	tail.Dir, tail.Env = dir, p.env
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
			watch(p, out.Bytes())
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	p.run("loop-step", append([]string{"--run", "p1", "--prompt", os.DevNull, "--", "sh", "-c", agent}, args...)...)
	p.run("loop-record", "status", "completed", "--run", "p1")
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
	return bytes.Clone(out.Bytes())
}

// printText is sh printing a Claude stream's assistant text $0.
const printText = `printf '{"type":"assistant","message":{"content":[{"type":"text","text":"%s"}]}}\n' "$0"; `

// TestTailFitsTerminalWidth: loop-view tail cuts an agent's text to the
// terminal's width in cells, between grapheme clusters. Cut at width
// runes, a line of CJK took two rows of a 40-column terminal, and a line
// of decomposed accents (NFD, as macOS writes) half of one.
func TestTailFitsTerminalWidth(t *testing.T) {
	t.Parallel()
	cjk := strings.Repeat("日本語のテキスト", 10)
	nfd := strings.Repeat("e\u0301", 100)
	out := tailOnPTY(t, 40, []string{"--quiet"}, func(p *ptyTail, out []byte) {
		if bytes.Count(out, []byte("…")) >= 2 { // both texts shown
			p.mark("seen")
		}
	}, `printf '{"type":"assistant","message":{"content":[{"type":"text","text":"%s"}]}}\n' "$0" "$1"; `+waitFor("seen"), cjk, nfd)
	lines := strings.Split(strings.TrimRight(string(out), "\r\n"), "\r\n")
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
	resized := false
	out := tailOnPTY(t, 60, []string{"--quiet"}, func(p *ptyTail, out []byte) {
		if c := bytes.Count(out, []byte("…")); c >= 1 && !resized {
			p.resize(30) // the window narrowed after the first line
			resized = true
			p.mark("resized")
		} else if c >= 2 {
			p.mark("seen")
		}
	}, printText+waitFor("resized")+printText+waitFor("seen"), strings.Repeat("abcdefghij", 10))
	lines := strings.Split(strings.TrimRight(string(out), "\r\n"), "\r\n")
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
	out := tailOnPTY(t, 0, nil, func(p *ptyTail, out []byte) {
		if bytes.Contains(out, []byte("agent retrying")) {
			p.mark("seen")
		}
	}, `echo '{"type":"error","message":"Reconnecting... 2/5 (\u001b]0;PWN\u0007\u001b[2J boom)"}'; `+waitFor("seen"))
	if bytes.IndexByte(out, 0x1b) >= 0 || !bytes.Contains(out, []byte(`agent retrying: Reconnecting... 2/5 (\x1b]0;PWN`)) {
		t.Errorf("an escape reached the terminal, or no notice:\n%q", out)
	}
}
