package agentmatrix

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// cancelAtFault runs `loop cancel RUN` once the CLI's faulted request has
// come (the API hangs: only the cancel can end the step soon), unless
// loop run ended first.
func (h *harness) cancelAtFault(env []string, done chan error) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			done <- err // loop run's result, for loopRun
			h.t.Errorf("loop run ended before its API request was faulted")
			return
		case <-tick.C:
		}
		faulted := false
		for _, r := range h.srv.Requests() {
			faulted = faulted || r.Fault != ""
		}
		runs, _ := os.ReadDir(filepath.Join(h.ws, ".loop", "runs"))
		if !faulted || len(runs) != 1 {
			continue
		}
		h.canceledAt = time.Now()
		cmd := exec.Command(abs(filepath.Join(root, "scripts", "loop")), "cancel", runs[0].Name())
		cmd.Dir, cmd.Env = h.ws, env
		out, err := cmd.CombinedOutput()
		h.t.Logf("loop cancel: %v: %s", err, out)
		if err != nil {
			h.t.Errorf("loop cancel %s: %v", runs[0].Name(), err)
		}
		return
	}
}

// checkCanceled: a canceled run says so, its step was not left to time
// out, and no process of the CLI is left (its HOME is the case's own).
func (h *harness) checkCanceled(step map[string]any) {
	t := h.t
	t.Logf("loop run ended %s after loop cancel", time.Since(h.canceledAt).Round(100*time.Millisecond))
	var status string
	for _, e := range h.records("events.jsonl") {
		if e["type"] == "RUN_CANCELED" {
			status, _ = e["status"].(string)
		}
	}
	h.expect("canceled", status == "canceled", "no RUN_CANCELED event (exit %d): %s", h.exit, tail(h.stderr, 400))
	h.expect("not-timed-out", step["timed_out"] != true && step["idle_timeout"] != true, "the step timed out instead: %v", step["error"])
	h.expect("exit", h.exit == 143, "exit %d, want 143 (SIGTERM)", h.exit)
	if left := processesWith("HOME=" + h.home); len(left) > 0 {
		t.Errorf("processes left after loop cancel: %s", strings.Join(left, "; "))
	}
}

// processesWith lists the processes (pid and command line) whose
// environment holds the entry: Linux's /proc only.
func processesWith(entry string) []string {
	var out []string
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		env, err := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
		if err != nil || !bytes.Contains(env, []byte("\x00"+entry+"\x00")) && !bytes.HasPrefix(env, []byte(entry+"\x00")) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		out = append(out, d.Name()+" "+strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	return out
}
