package loopstep

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/record"
)

var fakeAgent, _ = filepath.Abs("../../../testdata/fake-agent/fake-agent.sh")
var claudeSample, _ = filepath.Abs("../../../testdata/agent-samples/claude-stream-json-bash.ndjson")

type stepCase struct {
	t     *testing.T
	dir   string
	store string
	log   string
}

func newCase(t *testing.T) *stepCase {
	dir := t.TempDir()
	c := &stepCase{t: t, dir: dir, store: filepath.Join(dir, ".loop"), log: filepath.Join(dir, "agent.log")}
	t.Setenv("FAKE_LOG", c.log)
	t.Setenv("LOOP_STORE", "")
	t.Setenv("LOOP_RUN_ID", "")
	t.Setenv("LOOP_CONFIG", "")
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	c.write("prompt.md", "fix the tests\n")
	return c
}

func (c *stepCase) write(name, text string) string {
	p := filepath.Join(c.dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		c.t.Fatal(err)
	}
	return p
}

// run runs loop-step in process (the agent is a real child process) and
// returns its record, exit status and stderr.
func (c *stepCase) run(stdin string, args ...string) (*record.Step, int, string) {
	c.t.Helper()
	var out, errb bytes.Buffer
	args = append([]string{"--store", c.store, "--dir", c.dir}, args...)
	env := cli.NewEnv("loop-step", args, strings.NewReader(stdin), &out, &errb)
	code := env.Finish(Main(env))
	if out.Len() == 0 {
		return nil, code, errb.String()
	}
	var rec record.Step
	if err := json.Unmarshal(out.Bytes(), &rec); err != nil || bytes.Count(out.Bytes(), []byte{'\n'}) != 1 {
		c.t.Fatalf("stdout is not one record: %v\n%s", err, out.Bytes())
	}
	return &rec, code, errb.String()
}

func (c *stepCase) agentLog() string {
	data, _ := os.ReadFile(c.log)
	return string(data)
}

func TestPromptOnStdin(t *testing.T) {
	c := newCase(t)
	rec, code, _ := c.run("", "--prompt", c.dir+"/prompt.md", "--", fakeAgent, "-p")
	if code != 0 || rec.Attempts != 1 || *rec.ExitCode != 0 {
		t.Fatalf("code %d rec %+v", code, rec)
	}
	if want := "attempt 1\narg: -p\nstdin: fix the tests\n\n"; c.agentLog() != want {
		t.Errorf("agent saw %q, want %q", c.agentLog(), want)
	}
	prompt, err := os.ReadFile(*rec.PromptFile)
	if err != nil || string(prompt) != "fix the tests\n" {
		t.Errorf("spooled prompt %q %v", prompt, err)
	}
	stderr, _ := os.ReadFile(*rec.StderrFile)
	if string(stderr) != "fake agent attempt 1\n" {
		t.Errorf("spooled stderr %q", stderr)
	}
	meta, err := os.ReadFile(strings.TrimSuffix(*rec.StdoutFile, ".stdout") + ".json")
	if err != nil || !bytes.Contains(meta, []byte(`"pgid":`)) {
		t.Errorf("spool meta %s %v", meta, err)
	}
}

func TestPromptArgument(t *testing.T) {
	c := newCase(t)
	_, code, _ := c.run("", "--prompt", c.dir+"/prompt.md", "--", fakeAgent, "-p", "{prompt}", "x{prompt}")
	if want := "attempt 1\narg: -p\narg: fix the tests\n\narg: x{prompt}\nstdin: \n"; code != 0 || c.agentLog() != want {
		t.Errorf("code %d agent saw %q, want %q", code, c.agentLog(), want)
	}
}

func TestPromptFileArgument(t *testing.T) {
	c := newCase(t)
	rec, code, _ := c.run("", "--prompt", c.dir+"/prompt.md", "--", fakeAgent, "--file", "{prompt_file}")
	want := "attempt 1\narg: --file\narg: " + *rec.PromptFile + "\nstdin: \nfile " + *rec.PromptFile + ": fix the tests\n\n"
	if code != 0 || c.agentLog() != want {
		t.Errorf("code %d agent saw %q, want %q", code, c.agentLog(), want)
	}
}

// With --no-store the {prompt_file} is a temporary file gone afterwards.
func TestPromptFileNoStore(t *testing.T) {
	c := newCase(t)
	rec, code, _ := c.run("", "--no-store", "--prompt", c.dir+"/prompt.md", "--", fakeAgent, "{prompt_file}")
	if code != 0 || rec.PromptFile != nil || rec.StdoutFile != nil {
		t.Fatalf("code %d rec %+v", code, rec)
	}
	line := strings.Split(c.agentLog(), "\n")[1]
	path := strings.TrimPrefix(line, "arg: ")
	if _, err := os.Stat(path); !os.IsNotExist(err) || !strings.Contains(c.agentLog(), ": fix the tests") {
		t.Errorf("temporary prompt file %q: %v\n%s", path, err, c.agentLog())
	}
	if _, err := os.Stat(c.store); !os.IsNotExist(err) {
		t.Errorf("--no-store created the store: %v", err)
	}
}

func TestPromptArgumentTooLong(t *testing.T) {
	c := newCase(t)
	c.write("big.md", strings.Repeat("x", promptArgMax+1))
	rec, code, stderr := c.run("", "--prompt", c.dir+"/big.md", "--", fakeAgent, "{prompt}")
	if rec != nil || code != exitcode.Usage || !strings.Contains(stderr, "{prompt_file}") {
		t.Errorf("code %d stderr %q", code, stderr)
	}
	if c.agentLog() != "" {
		t.Errorf("agent ran: %q", c.agentLog())
	}
}

func TestRetriesCountAttempts(t *testing.T) {
	c := newCase(t)
	t.Setenv("FAKE_FAIL_TIMES", "2")
	rec, code, stderr := c.run("", "--prompt", c.dir+"/prompt.md", "--retries", "3", "--retry-backoff", "10ms", "--", fakeAgent)
	if code != 0 || rec.Attempts != 3 || *rec.ExitCode != 0 {
		t.Fatalf("code %d attempts %d", code, rec.Attempts)
	}
	if strings.Count(c.agentLog(), "stdin: fix the tests") != 3 {
		t.Errorf("each attempt gets the prompt:\n%s", c.agentLog())
	}
	if strings.Count(stderr, "retrying") != 2 || !strings.Contains(stderr, "backoff=10ms") || !strings.Contains(stderr, "backoff=20ms") {
		t.Errorf("backoff must double:\n%s", stderr)
	}
}

func TestRetriesExhausted(t *testing.T) {
	c := newCase(t)
	t.Setenv("FAKE_FAIL_TIMES", "5")
	rec, code, _ := c.run("", "--prompt", c.dir+"/prompt.md", "--retries", "1", "--retry-backoff", "1ms", "--", fakeAgent)
	if code != 3 || rec.Attempts != 2 || *rec.ExitCode != 3 {
		t.Fatalf("code %d attempts %d", code, rec.Attempts)
	}
	rec, code, _ = c.run("", "--exit-zero", "--prompt", c.dir+"/prompt.md", "--", fakeAgent)
	if code != 0 || rec.Attempts != 1 || *rec.ExitCode != 3 {
		t.Fatalf("--exit-zero: code %d rec %+v", code, rec)
	}
}

// A timeout is not retried: the agent would only time out again.
func TestTimeoutNotRetried(t *testing.T) {
	c := newCase(t)
	t.Setenv("FAKE_SLEEP", "30")
	rec, code, _ := c.run("", "--prompt", c.dir+"/prompt.md", "--timeout", "300ms", "--grace", "100ms", "--retries", "2", "--retry-backoff", "1ms", "--", fakeAgent)
	if code != exitcode.Timeout || !rec.TimedOut || rec.Attempts != 1 || *rec.ExitCode != -1 || rec.Error == nil {
		t.Fatalf("code %d rec %+v", code, rec)
	}
}

func TestClaudeTranscriptAndCompletion(t *testing.T) {
	c := newCase(t)
	t.Setenv("FAKE_TRANSCRIPT", claudeSample)
	rec, code, _ := c.run("", "--prompt", c.dir+"/prompt.md", "--", fakeAgent)
	if code != 0 || rec.Format != "claude" || *rec.LLMInputTokens != 7 || *rec.LLMOutputTokens != 141 ||
		*rec.LLMCacheReadTokens != 49191 || *rec.LLMCacheCreationTokens != 13238 || *rec.CostUSD != 0.110893 ||
		len(rec.ToolCalls) != 1 || rec.FinalMessage != "Listed contents of the working directory." || rec.Completed {
		t.Fatalf("code %d rec %+v", code, rec)
	}
	// Usage adds up over attempts: each was paid for.
	t.Setenv("FAKE_FAIL_TIMES", "1")
	os.Remove(c.log)
	rec, _, _ = c.run("", "--no-store", "--prompt", c.dir+"/prompt.md", "--retries", "1", "--retry-backoff", "1ms", "--", fakeAgent)
	if rec.Attempts != 2 || *rec.LLMOutputTokens != 282 || *rec.CostUSD != 2*0.110893 || len(rec.ToolCalls) != 1 {
		t.Fatalf("rec %+v", rec)
	}
}

func TestTextCompletionModes(t *testing.T) {
	c := newCase(t)
	t.Setenv("FAKE_SAY", "All green.\n<promise>COMPLETE</promise>")
	rec, _, _ := c.run("", "--prompt", c.dir+"/prompt.md", "--", fakeAgent)
	if rec.Format != "text" || !rec.Completed || rec.CompletionMalformed || rec.LLMInputTokens != nil || rec.CostUSD != nil {
		t.Fatalf("trailing: %+v", rec)
	}
	rec, _, _ = c.run("", "--prompt", c.dir+"/prompt.md", "--completion-mode", "exact", "--", fakeAgent)
	if rec.Completed || !rec.CompletionMalformed {
		t.Fatalf("exact: %+v", rec)
	}
	c.write("config", "completion_mode=bogus\n")
	_, code, stderr := c.run("", "--config", c.dir+"/config", "--prompt", c.dir+"/prompt.md", "--", fakeAgent)
	if code != exitcode.Usage || !strings.Contains(stderr, "bogus") {
		t.Errorf("bad config value: code %d %q", code, stderr)
	}
}
