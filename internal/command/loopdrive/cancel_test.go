package loopdrive

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/procid"
	"github.com/loopkit/loopkit/internal/procrec"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runstate"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/testsupport/storetest"
)

// A driver that takes the run while cancel waits for the lock (a second
// `loop resume` that got the lock the moment the first, signalled, let it
// go) is signalled too: cancel stops whichever driver holds the run, not
// only those it found at first, so the run ends canceled.
func TestCancelSignalsDriverThatTakesOver(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("no flock(1)")
	}
	st := storetest.Driven(t, record.RunRunning)
	lock := st.RunPath("r", store.DriverLock)
	if err := os.WriteFile(lock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// a "driver": holds the driver lock, says its pid, exits on SIGTERM
	driver := func(name string) *exec.Cmd {
		cmd := exec.Command("flock", lock, "sh", "-c",
			`trap 'exit 143' TERM; echo $$ > `+name+`.tmp; mv `+name+`.tmp `+name+`; while :; do sleep 0.05; done`)
		cmd.Dir = dir
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	// named records a driver in loopkit's record once it holds the lock
	named := func(name string) error {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				continue
			}
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			start, err := procid.Start(pid)
			if err != nil {
				return err
			}
			return procrec.Add(pid, start, procrec.Driver, st.RunDir("r"))
		}
		return fmt.Errorf("%s never held the lock", name)
	}
	a := driver("a")
	if err := named("a"); err != nil {
		t.Fatal(err)
	}
	b := driver("b") // waits for the lock, and is recorded once it has it
	bNamed := make(chan error, 1)
	go func() { bNamed <- named("b") }()
	var out bytes.Buffer
	env := cli.NewEnv("loop-drive", nil, strings.NewReader(""), &out, &out)
	if err := cancel(env, runstate.Plain(st, env.Log), "r"); err != nil {
		t.Fatalf("cancel: %v\n%s", err, out.String())
	}
	canceled := time.Now()
	if err := <-bNamed; err != nil {
		t.Fatal(err)
	}
	a.Wait()
	ended := make(chan struct{})
	go func() { b.Wait(); close(ended) }()
	select {
	case <-ended: // both signalled: the run's lock is free
	case <-time.After(10 * time.Second):
		// On a busy machine cancel may take the lock a ends with before b
		// does: b then takes a run already canceled, as any later resume
		// may, and is no driver cancel waited for.
		fi, err := os.Stat(filepath.Join(dir, "b"))
		if pid, _ := os.ReadFile(filepath.Join(dir, "b")); len(pid) > 0 { // b's shell, not only its flock
			n, _ := strconv.Atoi(strings.TrimSpace(string(pid)))
			syscall.Kill(n, syscall.SIGTERM)
		}
		<-ended
		if err == nil && fi.ModTime().After(canceled.Add(-20*time.Millisecond)) { // the kernel's clock is coarse
			t.Skip("b took the lock only after cancel had ended: the order this test needs did not happen")
		}
		t.Fatalf("b held the run while cancel waited and was not signalled\n%s", out.String())
	}
	got, err := st.ReadRun("r")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != record.RunCanceled {
		t.Errorf("status %s, want canceled\n%s", got.Status, out.String())
	}
}

// The driver lock is a file the agent can remove while the driver holds
// it: a resume granted a new file's lock still finds the live driver
// loopkit recorded for the run, and says the run is busy rather than
// driving it a second time.
func TestLockDriverBusyWhenLockFileReplaced(t *testing.T) {
	st := storetest.Driven(t, record.RunRunning)
	lock := st.RunPath("r", store.DriverLock)
	held, err := store.LockFile(lock, true, false) // the live driver's
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	storetest.RecordDriver(t, st, "r", sleeper(t).Process.Pid)
	os.Remove(lock) // the agent's rm
	var out bytes.Buffer
	h := &holder{env: cli.NewEnv("loop-drive", nil, strings.NewReader(""), &out, &out), st: st, parent: os.Getpid()}
	err = h.lockDriver("r")
	for _, l := range h.locks {
		l.Unlock()
	}
	if err == nil || !strings.Contains(err.Error(), "busy") {
		t.Fatalf("lockDriver = %v, want busy: a second driver for a driven run", err)
	}
}

// The agent removes the driver lock file its driver holds: loop cancel
// still stops the driver loopkit recorded for the run, rather than taking
// the new file's lock at once and marking canceled a run that goes on.
func TestCancelSignalsDriverWhoseLockFileWasRemoved(t *testing.T) {
	st := storetest.Driven(t, record.RunRunning)
	driver := sleeper(t)
	storetest.RecordDriver(t, st, "r", driver.Process.Pid)
	os.Remove(st.RunPath("r", store.DriverLock)) // the agent's rm
	exited := make(chan struct{})
	go func() { driver.Wait(); close(exited) }()
	var out bytes.Buffer
	env := cli.NewEnv("loop-drive", nil, strings.NewReader(""), &out, &out)
	if err := cancel(env, runstate.Plain(st, env.Log), "r"); err != nil {
		t.Fatalf("cancel: %v\n%s", err, out.String())
	}
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Fatalf("the recorded driver was not signalled\n%s", out.String())
	}
}

// sleeper is a live process the test ends.
func sleeper(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}
