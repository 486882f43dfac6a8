package loopstep

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/agent"
	"github.com/loopkit/loopkit/internal/record"
)

// An agent that prints only text but writes $LOOP_USAGE_FILE has its usage
// recorded, and the cost it gives is "reported".
func TestUsageFile(t *testing.T) {
	c := newCase(t)
	script := c.write("agent.sh", "#!/bin/sh\necho done\nprintf '%s' '{\"input_tokens\":10,\"output_tokens\":20,\"cache_read_tokens\":30,\"cache_creation_tokens\":40,\"cost_usd\":0.5}' > \"$LOOP_USAGE_FILE\"\n")
	chmodX(t, script)
	for _, noStore := range []bool{false, true} {
		args := []string{"--prompt", c.dir + "/prompt.md"}
		if noStore {
			args = append(args, "--no-store")
		}
		rec, _, _ := c.run("", append(args, "--", script)...)
		if rec.LLMInputTokens == nil || *rec.LLMInputTokens != 10 || *rec.LLMOutputTokens != 20 || *rec.LLMCacheReadTokens != 30 || *rec.LLMCacheCreationTokens != 40 ||
			rec.CostUSD == nil || *rec.CostUSD != 0.5 || str(rec.CostSource) != "reported" || rec.Format != "text" {
			t.Errorf("no-store %v: %+v", noStore, rec)
		}
	}
}

// With --prices, a step whose agent reports tokens but no cost gets an
// estimate from the table, by the model the stream names; without a table
// or a known model nothing is made up.
func TestPricesEstimate(t *testing.T) {
	c := newCase(t)
	prices := c.write("prices.json", `{"gpt-5": {"input": 1.25, "output": 10, "cache_read": 0.125, "cache_creation": 0}}`)
	t.Setenv("FAKE_SAY", `{"type":"thread.started","thread_id":"t"}`+"\n"+`{"type":"turn.completed","usage":{"input_tokens":1000000,"cached_input_tokens":400000,"output_tokens":100000}}`)
	rec, _, _ := c.run("", "--prompt", c.dir+"/prompt.md", "--prices", prices, "--", fakeAgent)
	if rec.CostUSD != nil || str(rec.CostSource) != "unknown" {
		t.Errorf("codex names no model: cost %v source %s", rec.CostUSD, str(rec.CostSource))
	}
	t.Setenv("FAKE_SAY", `{"type":"system","subtype":"init","session_id":"s","model":"gpt-5-codex"}`+"\n"+
		`{"type":"assistant","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":600000,"output_tokens":100000,"cache_read_input_tokens":400000,"cache_creation_input_tokens":0}},"session_id":"s"}`)
	rec, _, _ = c.run("", "--prompt", c.dir+"/prompt.md", "--prices", prices, "--", fakeAgent)
	// 0.6 M × 1.25 + 0.1 M × 10 + 0.4 M × 0.125 = 0.75 + 1 + 0.05
	if rec.CostUSD == nil || *rec.CostUSD < 1.7999 || *rec.CostUSD > 1.8001 || str(rec.CostSource) != "estimated" {
		t.Errorf("cost %v source %s", rec.CostUSD, str(rec.CostSource))
	}
	rec, _, _ = c.run("", "--prompt", c.dir+"/prompt.md", "--", fakeAgent)
	if rec.CostUSD != nil || str(rec.CostSource) != "unknown" {
		t.Errorf("without --prices: cost %v source %s", rec.CostUSD, str(rec.CostSource))
	}
}

// A usage file the agent made a FIFO, a link to /dev/zero or a link to a
// file elsewhere is refused at once (never waited on, never read through):
// the step is recorded, and the record says why the usage was ignored.
func TestUsageFileHostile(t *testing.T) {
	c := newCase(t)
	os.WriteFile(filepath.Join(c.dir, "elsewhere.json"), []byte(`{"input_tokens":7}`), 0o600)
	for name, plant := range map[string]string{
		"fifo":     `mkfifo "$LOOP_USAGE_FILE"`,
		"dev-zero": `ln -s /dev/zero "$LOOP_USAGE_FILE"`,

		"link":      `ln -s "` + c.dir + `/elsewhere.json" "$LOOP_USAGE_FILE"`,
		"too-large": `head -c 100000 /dev/zero | tr '\0' ' ' > "$LOOP_USAGE_FILE"`,
	} {
		script := c.write(name+".sh", "#!/bin/sh\necho done\n"+plant+"\n")
		chmodX(t, script)
		type result struct {
			rec  *record.Step
			code int
		}
		done := make(chan result, 1)
		go func() {
			rec, code, _ := c.run("", "--prompt", c.dir+"/prompt.md", "--", script)
			done <- result{rec, code}
		}()
		select {
		case r := <-done:
			if r.code != 0 || r.rec == nil || r.rec.LLMInputTokens != nil || len(r.rec.UsageIgnored) != 1 ||
				!strings.HasPrefix(r.rec.UsageIgnored[0], "usage file: ") {
				t.Errorf("%s: code %d record %+v", name, r.code, r.rec)
			}
		case <-time.After(30 * time.Second):
			// Release the reader blocked on the FIFO, then fail.
			matches, _ := filepath.Glob(filepath.Join(c.store, "spool", "*.usage.json"))
			for _, m := range matches {
				if f, err := os.OpenFile(m, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
			}
			t.Fatalf("%s: loop-step still reading the usage file after 30 s", name)
		}
	}
}

// Figures out of range are dropped and named, the others kept: a negative
// count, one past any real call (int64's end, which would wrap a total
// negative), a negative cost.
func TestUsageFiguresRanged(t *testing.T) {
	c := newCase(t)
	script := c.write("agent.sh", "#!/bin/sh\necho done\nprintf '%s' '{\"input_tokens\":-5,\"output_tokens\":9223372036854775807,\"cache_read_tokens\":30,\"cost_usd\":-1}' > \"$LOOP_USAGE_FILE\"\n")
	chmodX(t, script)
	rec, code, stderr := c.run("", "--prompt", c.dir+"/prompt.md", "--", script)
	if code != 0 || rec.LLMInputTokens != nil || rec.LLMOutputTokens != nil || rec.CostUSD != nil ||
		rec.LLMCacheReadTokens == nil || *rec.LLMCacheReadTokens != 30 || len(rec.UsageIgnored) != 3 {
		t.Fatalf("code %d record %+v", code, rec)
	}
	if !strings.Contains(stderr, "usage figure ignored") || !strings.Contains(rec.UsageIgnored[1], "output_tokens 9223372036854775807 is out of range") {
		t.Errorf("ignored %q, stderr:\n%s", rec.UsageIgnored, stderr)
	}
}

// With --no-store and a relative TMPDIR (TMPDIR=.tmp in a CI job) the
// usage file the agent is told of is absolute: the agent runs in --dir.
func TestUsagePathAbsolute(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	t.Chdir(dir)
	os.Mkdir("rel", 0o700)
	t.Setenv("TMPDIR", "rel")
	if p := (&stepRun{}).usagePath(); filepath.Dir(p) != filepath.Join(dir, "rel") {
		t.Errorf("usage file %s, want one in %s", p, filepath.Join(dir, "rel"))
	}
}

// The price table's path comes from the store's config and names a file
// the agent can replace between steps: a FIFO there would hold loop-step
// before its agent ever starts, past every timeout; a link or /dev/zero
// would be followed or read without end. Each is refused, naming it.
func TestPricesFileHostile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "prices.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	link := filepath.Join(dir, "link.json")
	good := filepath.Join(dir, "good.json")
	os.WriteFile(good, []byte(`{}`), 0o600)
	os.Symlink(good, link)
	for _, p := range []string{fifo, link, "/dev/zero"} {
		done := make(chan error, 1)
		go func() { _, err := agent.LoadPrices(p); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), p) {
				t.Errorf("agent.LoadPrices(%s) = %v, want a refusal naming it", p, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("agent.LoadPrices(%s) still reading", p)
		}
	}
	if _, err := agent.LoadPrices(good); err != nil {
		t.Errorf("a plain table: %v", err)
	}
}
