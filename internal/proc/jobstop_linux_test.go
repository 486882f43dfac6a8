package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stopHelper runs one child to its end, says so, then waits as loop-step
// waits out a retry's backoff before its next agent call.
func stopHelper(dir string) {
	Run(Spec{Args: []string{"true"}})
	os.WriteFile(filepath.Join(dir, "ready"), nil, 0o644)
	time.Sleep(time.Minute)
	os.Exit(0)
}

// A Ctrl-Z between two children stops the command, as SIGTSTP's default
// does: the relay of the first child's run used to leave Go's handler
// catching SIGTSTP and dropping it, so the command went on, and started its
// next agent call, while the shell said "Stopped".
func TestCtrlZBetweenChildrenStops(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PROC_STOP_HELPER="+dir)
	// a group of its own, as a job-control shell gives a job
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	waitFor(t, "the helper's first child ended", func() bool {
		_, err := os.Stat(filepath.Join(dir, "ready"))
		return err == nil
	})
	cmd.Process.Signal(syscall.SIGTSTP)
	waitFor(t, "the helper stopped on SIGTSTP", func() bool {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/stat")
		i := strings.LastIndexByte(string(stat), ')')
		return err == nil && i > 0 && strings.HasPrefix(string(stat[i+1:]), " T")
	})
	cmd.Process.Signal(syscall.SIGCONT)
}

// waitFor waits until ok, within a bound for a loaded machine.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
	}
}
