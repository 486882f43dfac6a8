package fleet

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// stubbornAgent is an agent CLI that works until it is stopped, writing
// its pid to mark once it has started.
func stubbornAgent(mark string) string {
	return "#!/bin/sh\ncat >/dev/null\necho $$ > " + mark + ".tmp && mv " + mark + ".tmp " + mark + "\nexec sleep 300\n"
}

// stopShell starts cmd, a CI step's or a container's shell running the
// driver, waits for the agent to start (mark), sends sig to the shell
// alone, as a runner or the kubelet does, and waits for the shell to end:
// what the driver then heard is in the store. Everything started is
// killed at the end.
func stopShell(t *testing.T, cmd *exec.Cmd, mark string, sig syscall.Signal) string {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		syscall.Kill(-pgid, syscall.SIGKILL)
		if pid, err := os.ReadFile(mark); err == nil { // the agent left its group with the driver's
			var n int
			if _, err := fmt.Sscan(string(pid), &n); err == nil && n > 1 {
				syscall.Kill(n, syscall.SIGKILL)
			}
		}
	})
	waitFor(t, done, &log, func() bool { _, err := os.Stat(mark); return err == nil }, "the agent to start")
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("the shell did not end after %v: the driver never heard of it\n%s", sig, log.String())
	}
	return log.String()
}

// wantCanceled: the store holds one run, recorded canceled.
func wantCanceled(t *testing.T, store string) {
	t.Helper()
	runs, _ := filepath.Glob(filepath.Join(store, "runs", "*", "run.json"))
	if len(runs) != 1 {
		t.Fatalf("runs: %v", runs)
	}
	var run struct{ Status string }
	if data, _ := os.ReadFile(runs[0]); yaml.Unmarshal(data, &run) != nil || run.Status != "canceled" {
		t.Errorf("run.json: status %q, want canceled", run.Status)
	}
}

// waitFor polls ok until it holds; the step ending first, or a minute, fails.
func waitFor(t *testing.T, done <-chan error, log *strings.Builder, ok func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !ok() {
		select {
		case err := <-done:
			t.Fatalf("the step ended (%v) before %s\n%s", err, what, log.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s\n%s", what, log.String())
		}
	}
}
