package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestTerminalSignals: SIGTERM (kill, timeout(1)), SIGHUP and SIGINT sent
// to the view end it as they end any command, with 128+n, and the terminal
// is given back (no alternate screen, echo and line editing on). Bubble
// Tea's own handler ended a SIGTERM with exit 0, a success to a script.
func TestTerminalSignals(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux not installed (CI installs it): the view is driven in a terminal there")
	}
	bin := commandsDir(t)
	storeDir := filepath.Join(t.TempDir(), ".loop")
	cmd := exec.Command(filepath.Join(bin, "loop-record"), "--new-run", "--run", "r-one", "--name", "one")
	cmd.Env = append(os.Environ(), "LOOP_STORE="+storeDir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("loop-record: %v\n%s", err, out)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			script := fmt.Sprintf("env NO_COLOR=1 LOOP_STORE=%q sh -c 'echo $$ >%q; exec %q'; echo VIEW-EXITED-$?; stty -a | tr ' ' '\\n' | grep -x -e icanon -e echo | tr '\\n' ' '; echo TTY-END; sleep 60",
				storeDir, pidFile, filepath.Join(bin, "loop-view"))
			tm := startTmux(t, tmux, script)
			tm.waitFor("runs list", has("> r-one"))
			data, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil {
				t.Fatal(err)
			}
			if err := syscall.Kill(pid, sig); err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("VIEW-EXITED-%d", 128+int(sig))
			screen := tm.waitFor("the view's exit", has("TTY-END"))
			if !strings.Contains(screen, want) || !strings.Contains(screen, "icanon echo TTY-END") {
				t.Fatalf("want %s and the terminal back (icanon echo):\n%s", want, screen)
			}
			if alt, _ := tm.cmd("display-message", "-p", "-t", tm.id, "#{alternate_on}").Output(); strings.TrimSpace(string(alt)) != "0" {
				t.Fatalf("still on the alternate screen after %v", sig)
			}
		})
	}
}
