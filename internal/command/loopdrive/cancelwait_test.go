package loopdrive

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runstate"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/testsupport/storetest"
)

// deafDriver is a recorded driver of st's run that ignores SIGTERM, as the
// driver does while it merges or ends a run, until the file it returns
// appears.
func deafDriver(t *testing.T, st *store.Store) string {
	t.Helper()
	dir := t.TempDir()
	release := filepath.Join(dir, "go")
	cmd := exec.Command("sh", "-c", `trap '' TERM; echo >"$1"; while [ ! -e "$2" ]; do sleep 0.02; done`,
		"sh", filepath.Join(dir, "deaf"), release)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	go cmd.Wait()                                                                          // reaped: a zombie would still look alive
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) { // until it ignores SIGTERM
		if _, err := os.Stat(filepath.Join(dir, "deaf")); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatal("the driver never started")
		}
	}
	storetest.RecordDriver(t, st, "r", cmd.Process.Pid)
	return release
}

func setRun(t *testing.T, st *store.Store, change func(*record.Run)) {
	t.Helper()
	if _, err := runstate.Plain(st, nil).Rec.Update("r", func(r *record.Run) error { change(r); return nil }); err != nil {
		t.Fatal(err)
	}
}

// `loop cancel` while the driver merges the run's branch: the driver
// finishes the merge before it acts on the signal. cancel said after 15 s
// that the driver "did not stop" and told the person to kill it (mid-merge);
// it now says why it waits, waits for the merge and marks the run canceled.
func TestCancelWaitsForMerge(t *testing.T) {
	defer func(d time.Duration) { stopWait = d }(stopWait)
	stopWait = 50 * time.Millisecond
	st := storetest.Driven(t, record.RunRunning)
	setRun(t, st, func(r *record.Run) {
		r.Merge = &record.Merge{RunBranch: "run/x", Target: "main", Status: record.MergeStarted}
	})
	release := deafDriver(t, st)
	logFile := filepath.Join(t.TempDir(), "log") // written by cancel while the test reads it
	out, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	said := func() string { b, _ := os.ReadFile(logFile); return string(b) }
	env := cli.NewEnv("loop-drive", nil, strings.NewReader(""), out, out)
	done := make(chan error, 1)
	go func() { done <- cancel(env, runstate.Plain(st, env.Log), "r") }()
	for !strings.Contains(said(), "merging run/x into main") {
		select {
		case err := <-done:
			t.Fatalf("cancel ended before the merge did: %v\n%s", err, said())
		case <-time.After(10 * time.Millisecond):
		}
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil { // the merge is done
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("cancel: %v\n%s", err, said())
	}
	if got, _ := st.ReadRun("r"); got.Status != record.RunCanceled {
		t.Errorf("status %s, want canceled", got.Status)
	}
}

// A run that has completed while its driver still runs its on_event hooks
// (signals ignored: the end is recorded whole) has nothing to cancel: cancel
// says so, not that the driver "did not stop" and is to be killed.
func TestCancelOfRunEnding(t *testing.T) {
	defer func(d time.Duration) { stopWait = d }(stopWait)
	stopWait = 50 * time.Millisecond
	st := storetest.Driven(t, record.RunCompleted)
	deafDriver(t, st)
	var out bytes.Buffer
	env := cli.NewEnv("loop-drive", nil, strings.NewReader(""), &out, &out)
	err := cancel(env, runstate.Plain(st, env.Log), "r")
	if err == nil || !strings.Contains(err.Error(), "already completed: nothing to cancel") {
		t.Fatalf("cancel = %v, want already completed\n%s", err, out.String())
	}
	if code := cli.Code(err); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
}
