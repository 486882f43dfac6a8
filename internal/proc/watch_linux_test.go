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

// The watcher is what macOS and the BSDs use instead of Pdeathsig; these
// tests run it on Linux.

func TestMain(m *testing.M) {
	MaybeWatch()
	if n := os.Getenv("PROC_BURST_HELPER"); n != "" {
		burstHelper(n)
	}
	if dir := os.Getenv("PROC_STOP_HELPER"); dir != "" {
		stopHelper(dir)
	}
	if dir := os.Getenv("PROC_WATCH_HELPER"); dir != "" {
		useWatcher = true
		Run(Spec{Args: []string{"sh", "-c", "echo $$ > " + filepath.Join(dir, "pid") + "; exec sleep 60"}, ParentDeath: true})
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestWatcherPassesStatus(t *testing.T) {
	useWatcher = true
	defer func() { useWatcher = false }()
	res, err := Run(Spec{Args: []string{"sh", "-c", "echo out; exit 3"}, ParentDeath: true, InlineCap: 1024})
	if err != nil || res.ExitCode != 3 || string(res.Stdout) != "out\n" {
		t.Fatalf("exit 3: %+v %v", res, err)
	}
	res, err = Run(Spec{Args: []string{"sh", "-c", "kill -TERM $$"}, ParentDeath: true})
	if err != nil || res.Signal != "SIGTERM" {
		t.Fatalf("killed by SIGTERM: %+v %v", res, err)
	}
	res, err = Run(Spec{Args: []string{"sleep", "10"}, ParentDeath: true, Timeout: 200 * time.Millisecond})
	if err != nil || !res.TimedOut || res.Duration() > 5*time.Second {
		t.Fatalf("timeout: %+v %v", res, err)
	}
}

// TestWatcherKillsWhenParentDies: SIGKILL the loopkit process; the command
// it ran is gone soon after.
func TestWatcherKillsWhenParentDies(t *testing.T) {
	dir := t.TempDir()
	helper := exec.Command(os.Args[0], "-test.run=^$")
	helper.Env = append(os.Environ(), "PROC_WATCH_HELPER="+dir)
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	for i := 0; i < 100 && pid == 0; i++ {
		time.Sleep(50 * time.Millisecond)
		b, _ := os.ReadFile(filepath.Join(dir, "pid"))
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if pid == 0 {
		helper.Process.Kill()
		t.Fatal("the command never started")
	}
	helper.Process.Kill()
	helper.Wait()
	for i := 0; i < 100; i++ {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && strings.Contains(string(b), ") Z ") {
			return // killed, waiting for init to reap it
		}
		time.Sleep(50 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("pid %d outlived its parent by 5s", pid)
}
