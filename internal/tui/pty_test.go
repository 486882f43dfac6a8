//go:build linux

package tui

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair: the side this test reads, and the
// terminal the program gets.
func openPTY(t *testing.T) (ours, theirs *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("ptsname: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open pts: %v", err)
	}
	if err := unix.IoctlSetWinsize(int(s.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 80}); err != nil {
		t.Fatal(err)
	}
	return m, s
}

// TestNoTerminalAnswerNeeded runs loop-tui on a terminal that never
// answers the queries it sends: the screen must still be drawn at once and
// q must still quit.
func TestNoTerminalAnswerNeeded(t *testing.T) {
	dir := t.TempDir()
	m, s := openPTY(t)
	defer m.Close()
	cmd := exec.Command(filepath.Join(commandsDir(t), "loop-tui"))
	cmd.Env = append(os.Environ(), "LOOP_STORE="+filepath.Join(dir, ".loop"), "TERM=xterm-256color", "NO_COLOR=")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s, s, s
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var screen bytes.Buffer
	read := make(chan []byte)
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := m.Read(buf)
			if n > 0 {
				read <- append([]byte(nil), buf[:n]...)
			}
			if err != nil {
				close(read)
				return
			}
		}
	}()
	deadline := time.After(10 * time.Second)
	for !strings.Contains(screen.String(), "enter open") {
		select {
		case b, ok := <-read:
			if !ok {
				t.Fatalf("loop-tui closed the terminal:\n%q", screen.String())
			}
			screen.Write(b)
		case <-deadline:
			t.Fatalf("no screen after 10 s with an unanswered terminal:\n%q", screen.String())
		}
	}
	t.Logf("queries left unanswered: DECRQM 2026 %v, kitty keyboard %v",
		strings.Contains(screen.String(), "\x1b[?2026$p"), strings.Contains(screen.String(), "\x1b[?u"))
	if _, err := m.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	go func() {
		for range read {
		}
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("loop-tui: %v", err)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("q did not quit within 10 s")
	}
}

// TestDumbTerminalNoFullScreen: on a terminal with TERM=dumb or no TERM
// (Emacs' shell, M-x compile), which prints lines and cannot move the
// cursor, neither loop-view alone nor loop-tui opens the full-screen view:
// its screen switch and cursor moves showed as escapes until q.
func TestDumbTerminalNoFullScreen(t *testing.T) {
	bin := commandsDir(t)
	store := "LOOP_STORE=" + filepath.Join(t.TempDir(), ".loop")
	for _, term := range []string{"TERM=dumb", ""} {
		for _, args := range [][]string{{"loop-view"}, {"loop-tui"}, {"loop-view", "tui"}} {
			m, s := openPTY(t)
			cmd := exec.Command(filepath.Join(bin, args[0]), args[1:]...)
			cmd.Env = append(withoutTERM(os.Environ()), store, "NO_COLOR=1")
			if term != "" {
				cmd.Env = append(cmd.Env, term)
			}
			cmd.Stdin, cmd.Stdout, cmd.Stderr = s, s, s
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			s.Close()
			var out bytes.Buffer
			read := make(chan struct{})
			go func() { out.ReadFrom(m); close(read) }() // EIO once the child is gone
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(5 * time.Second):
				m.Write([]byte("q"))
				err = <-done
			}
			<-read
			m.Close()
			lines := strings.Split(strings.TrimRight(out.String(), "\r\n"), "\r\n")
			if bytes.Contains(out.Bytes(), []byte("\x1b")) || len(lines) > 2 || cmd.ProcessState.ExitCode() != 2 {
				t.Errorf("%q %v: %v, want exit 2 and a line saying what to use:\n%q", term, args, err, out.String())
			}
		}
	}
}

func withoutTERM(env []string) []string {
	var kept []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TERM=") {
			kept = append(kept, kv)
		}
	}
	return kept
}
