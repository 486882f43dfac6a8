package loopstep

import (
	"path/filepath"
	"strings"
	"testing"
)

func fake(name string) string {
	p, _ := filepath.Abs("../../../testdata/fake-agent/" + name)
	return p
}

// An agent that prints its result and never exits is killed after the
// grace; its work counts (exit 0) and the record says what happened.
func TestKilledAfterResult(t *testing.T) {
	c := newCase(t)
	rec, code, _ := c.run("", "--prompt", c.dir+"/prompt.md", "--after-result-grace", "300ms", "--", fake("result-then-hang.sh"))
	if code != 0 || !rec.KilledAfterResult || rec.TimedOut || rec.IdleTimeout || !rec.Completed {
		t.Fatalf("code %d killed_after_result %v timed_out %v completed %v", code, rec.KilledAfterResult, rec.TimedOut, rec.Completed)
	}
	// the work was done: the kill is no error of the step's
	if rec.Error != nil || rec.ErrorKind != nil || rec.SessionID == nil || *rec.SessionID != "hang-1" {
		t.Errorf("error %v session %v", str(rec.Error), str(rec.SessionID))
	}
	if rec.DurationMs > 20000 {
		t.Errorf("took %d ms", rec.DurationMs)
	}
}

// Silence past the idle timeout kills the agent like a timeout.
func TestIdleTimeoutSilent(t *testing.T) {
	c := newCase(t)
	rec, code, _ := c.run("", "--prompt", c.dir+"/prompt.md", "--idle-timeout", "400ms", "--", fake("silent.sh"))
	if code != 124 || !rec.IdleTimeout || !rec.TimedOut || rec.KilledAfterResult {
		t.Fatalf("code %d idle %v timed_out %v", code, rec.IdleTimeout, rec.TimedOut)
	}
	if rec.Error == nil || !strings.Contains(*rec.Error, "idle timeout") {
		t.Errorf("error %v", str(rec.Error))
	}
}

// Codex without network prints a retry notice every 0.1 s forever: that is
// no progress, so the idle timeout still fires.
func TestIdleTimeoutCodexReconnectSpam(t *testing.T) {
	c := newCase(t)
	rec, code, _ := c.run("", "--prompt", c.dir+"/prompt.md", "--idle-timeout", "700ms", "--", fake("codex-reconnect.sh"))
	if code != 124 || !rec.IdleTimeout || rec.Format != "codex" {
		t.Fatalf("code %d idle %v format %s", code, rec.IdleTimeout, rec.Format)
	}
	if rec.Error == nil || !strings.Contains(*rec.Error, "Reconnecting... waiting for network") {
		t.Errorf("error %v", str(rec.Error))
	}
}

// Output that is progress keeps the agent alive past the idle timeout: the
// agent runs about three times the timeout, printing every tenth of it, so
// only a pause of the whole timeout (not a loaded machine's slow sleep
// start) between two lines could end it.
func TestIdleTimeoutProgressKeepsAlive(t *testing.T) {
	c := newCase(t)
	script := c.write("agent.sh", "#!/bin/sh\ni=0\nwhile [ $i -lt 30 ]; do i=$((i+1)); echo \"step $i\"; sleep 0.1; done\necho done\n")
	chmodX(t, script)
	rec, code, _ := c.run("", "--prompt", c.dir+"/prompt.md", "--idle-timeout", "1s", "--", script)
	if code != 0 || rec.IdleTimeout || rec.FinalMessage == "" {
		t.Fatalf("code %d idle %v final %q", code, rec.IdleTimeout, rec.FinalMessage)
	}
}
