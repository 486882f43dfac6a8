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
	if os.Getenv("PROC_GROW_HELPER") != "" {
		growHelper()
	}
	if os.Getenv("PROC_REWIND_HELPER") != "" {
		rewindHelper()
	}
	if n := os.Getenv("PROC_BURST_HELPER"); n != "" {
		burstHelper(n)
	}
	if dir := os.Getenv("PROC_STOP_HELPER"); dir != "" {
		stopHelper(dir)
	}
	if os.Getenv("PROC_LEFTOVER_HELPER") != "" {
		leftoverHelper()
	}
	if os.Getenv("PROC_CPU_HELPER") != "" {
		cpuHelper()
	}
	if dir := os.Getenv("PROC_FSIZE_HELPER"); dir != "" {
		fsizeHelper(dir)
	}
	if dir := os.Getenv("PROC_IGN_HELPER"); dir != "" {
		useWatcher = true
		Run(Spec{Args: []string{"sh", "-c", "grep SigIgn /proc/self/status > '" + filepath.Join(dir, "ign") + "'"}, ParentDeath: true})
		os.Exit(0)
	}
	if dir := os.Getenv("PROC_WATCH_HELPER"); dir != "" {
		useWatcher = true
		Run(Spec{Args: []string{"sh", "-c", "echo $$ > '" + filepath.Join(dir, "pid") + "'; exec sleep 60"}, ParentDeath: true})
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

// A signal the command was started with ignored (SIGHUP under nohup,
// SIGINT in a script's & job) stays ignored in what the watcher starts,
// as it does without one (NotifyStop): the watcher used to catch it, so
// exec gave the agent the default, which nohup asked not to.
func TestWatcherKeepsIgnoredSignals(t *testing.T) {
	dir := t.TempDir()
	helper := exec.Command("sh", "-c", `trap "" HUP INT; exec "$0" -test.run=^$`, os.Args[0])
	helper.Env = append(os.Environ(), "PROC_IGN_HELPER="+dir)
	if out, err := helper.CombinedOutput(); err != nil {
		t.Fatalf("helper: %v %s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "ign"))
	if err != nil {
		t.Fatal(err)
	}
	mask, err := strconv.ParseUint(strings.TrimSpace(strings.TrimPrefix(string(b), "SigIgn:")), 16, 64)
	if err != nil {
		t.Fatalf("%q: %v", b, err)
	}
	for _, s := range []syscall.Signal{syscall.SIGHUP, syscall.SIGINT} {
		if mask&(1<<(s-1)) == 0 {
			t.Errorf("%v is not ignored in the watched command (SigIgn %x)", s, mask)
		}
	}
}
