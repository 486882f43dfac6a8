// Package agentmatrix runs the real agent CLIs (Claude Code, Codex, Gemini
// CLI, opencode) under `scripts/loop run` against the scripted model API,
// one case per outcome, and checks what loopkit recorded against what the
// CLI itself reported. `make test-agents` installs the CLIs and runs it.
package agentmatrix

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/itchyny/gojq"
	"github.com/loopkit/loopkit/internal/testsupport/modelapi"
)

const root = "../../.."

var agentsDir = filepath.Join(root, "testdata", "agents")

// harness is one case: a workspace, a HOME of its own, the API it talks to.
type harness struct {
	t              *testing.T
	cli            cli
	ws, home, url  string
	srv            *modelapi.Server
	stdout, stderr string
	exit           int
	took           time.Duration
	started        time.Time
	canceledAt     time.Time
	run            string
}

// pathsFromEnv reads LOOPKIT_AGENT_CLIS: name=path,… as .ci/agent-clis
// prints it.
func pathsFromEnv() map[string]string {
	out := map[string]string{}
	for _, kv := range strings.Split(os.Getenv("LOOPKIT_AGENT_CLIS"), ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(kv), "="); ok && v != "" {
			out[k] = v
		}
	}
	return out
}

func TestAgentMatrix(t *testing.T) {
	paths := pathsFromEnv()
	if len(paths) == 0 {
		t.Skip("LOOPKIT_AGENT_CLIS is not set: the real agent CLIs are not run here (`make test-agents` installs them from npm and runs this matrix)")
	}
	for _, c := range []string{"loop-step", "loop-record", "loop-drive", "loop-view", "loop-validate"} {
		if _, err := os.Stat(filepath.Join(root, "bin", c)); err != nil {
			t.Fatalf("bin/%s missing: run `make build` first", c)
		}
	}
	names := make([]string, 0, len(paths))
	for n := range paths {
		if _, ok := clis[n]; !ok {
			t.Fatalf("LOOPKIT_AGENT_CLIS names %q: not one of claude, codex, gemini, opencode", n)
		}
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c, path := clis[n], paths[n]
		t.Run(n, func(t *testing.T) {
			t.Parallel() // the CLIs wait on the network and timers more than on the CPU
			version := cliVersion(t, path)
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					if tc.name == "max_turns" && c.maxTurns == nil {
						t.Skipf("%s has no limit on model turns", n)
					}
					if tc.name == "max_budget" && c.maxBudget == nil {
						t.Skipf("%s has no limit on its spending", n)
					}
					if tc.denied && c.denied == nil {
						t.Skipf("loopkit reads no refusal of a tool from %s's stream: %s", n, c.noDenial)
					}
					h := newHarness(t, c, path, tc)
					h.loopRun(tc)
					tc.check(h)
					timing.add(n, version, tc.name, h)
					if dir := os.Getenv("LOOPKIT_AGENTS_KEEP"); dir != "" { // every case's streams, to read
						out, errb := h.agentStream()
						base := filepath.Join(dir, n+"-"+tc.name)
						writeFile(base+".stdout", string(out))
						writeFile(base+".stderr", string(errb))
						writeFile(base+".driver", h.stderr)
						filepath.Walk(h.runDir(), func(p string, fi os.FileInfo, err error) error {
							if err == nil && !fi.IsDir() && (fi.Name() == "agent.stdout" || fi.Name() == "agent.stderr") {
								data, _ := os.ReadFile(p)
								writeFile(base+"."+filepath.Base(filepath.Dir(p))+"."+fi.Name(), string(data))
							}
							return nil
						})
						reqs, _ := json.Marshal(h.srv.Requests())
						writeFile(base+".requests", string(reqs))
						for _, f := range []string{"iterations.jsonl", "attempts.jsonl", "events.jsonl"} {
							data, _ := os.ReadFile(filepath.Join(h.runDir(), f))
							writeFile(base+"."+f, string(data))
						}
					}
					if dir := os.Getenv("LOOPKIT_AGENTS_CAPTURE"); dir != "" && tc.capture {
						h.capture(dir, version, tc.name)
					}
				})
			}
		})
	}
	t.Cleanup(timing.print(t))
}

func cliVersion(t *testing.T, path string) string {
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", path, err)
	}
	f := strings.Fields(string(out))
	for _, w := range f {
		if len(w) > 0 && w[0] >= '0' && w[0] <= '9' {
			return w
		}
	}
	t.Fatalf("%s --version: no version in %q", path, out)
	return ""
}

func newHarness(t *testing.T, c cli, path string, tc matrixCase) *harness {
	dir := t.TempDir()
	h := &harness{t: t, cli: c, ws: filepath.Join(dir, "ws"), home: filepath.Join(dir, "home")}
	os.MkdirAll(filepath.Join(h.home, "bin"), 0o755)
	if err := os.Symlink(path, filepath.Join(h.home, "bin", c.name)); err != nil {
		t.Fatal(err)
	}
	writeFile(filepath.Join(h.ws, "TASK.md"), "Create notes.txt with the lines hello and world.\n")
	git(t, h.ws, "init", "-q")
	git(t, h.ws, "add", "-A")
	git(t, h.ws, "-c", "user.email=ci@loopkit.invalid", "-c", "user.name=ci", "commit", "-qm", "init")
	h.srv = modelapi.New(tc.scenario(h))
	hs := httptest.NewServer(h.srv)
	t.Cleanup(func() { h.srv.Close(); hs.Close() })
	h.url = hs.URL
	if tc.unreachable {
		// a port that was just free: connection refused
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		h.url = "http://" + ln.Addr().String()
		ln.Close()
	}
	return h
}

func git(t *testing.T, dir string, args ...string) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
}

// loopRun runs `scripts/loop run` on the case's workspace, bounded by a
// deadline after which its whole process group is killed.
func (h *harness) loopRun(tc matrixCase) {
	t := h.t
	env := []string{
		"HOME=" + h.home, "XDG_CONFIG_HOME=" + filepath.Join(h.home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(h.home, ".local/share"), "XDG_STATE_HOME=" + filepath.Join(h.home, ".local/state"),
		"XDG_CACHE_HOME=" + sharedCache(t, h.cli.name), "npm_config_cache=" + sharedCache(t, "npm"),
		"PATH=" + filepath.Join(h.home, "bin") + ":" + abs(filepath.Join(root, "bin")) + ":" + os.Getenv("PATH"),
		"LOOP_BIN=" + abs(filepath.Join(root, "bin")), "TERM=dumb", "NO_COLOR=1",
		"TMPDIR=" + filepath.Join(h.home, "tmp"), // Gemini CLI writes error reports there
	}
	os.MkdirAll(filepath.Join(h.home, "tmp"), 0o755)
	for _, k := range []string{"LANG"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	env = append(env, h.cli.config(h)...)
	budget := tc.budget(h.cli.name)
	maxWait := cmp.Or(tc.maxWait, time.Second)
	iterations := "1"
	if tc.denied {
		iterations = "3"
	}
	args := []string{"run", "--prompt", "TASK.md", "--validate", tc.validate, "--max-iterations", iterations,
		"--max-agent-failures", "1", "--timeout", budget.String(), "--max-wait", maxWait.String(), "--max-concurrency", "64"}
	if tc.agentPolicy {
		args = append(args, "--rate-limit-policy", "agent")
	}
	var conf []string // settings loop-step reads for itself: config only
	if tc.idleTimeout > 0 {
		conf = append(conf, "idle_timeout="+tc.idleTimeout.String())
	}
	if tc.forever { // past it calls are counted, not kept
		conf = append(conf, fmt.Sprintf("max_tool_calls=%d", maxToolCallsForever))
	}
	if len(conf) > 0 {
		path := filepath.Join(h.home, "loop.conf")
		writeFile(path, strings.Join(conf, "\n")+"\n")
		args = append(args, "--config", path)
	}
	agent := h.cli.args(h)
	switch tc.name {
	case "max_turns":
		agent = append(agent, h.cli.maxTurns(h)...)
	case "max_budget":
		agent = append(agent, h.cli.maxBudget(h)...)
	}
	if tc.denied {
		agent = h.cli.denied(h)
	}
	args = append(append(args, "--"), agent...)
	// loop run's own deadline: the agent's budget, the validation and the
	// agent's kill grace after it
	deadline := budget + 2*time.Minute + maxWait
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	cmd := exec.Command(abs(filepath.Join(root, "scripts", "loop")), args...)
	cmd.Dir, cmd.Env = h.ws, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	h.started = time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if tc.cancel {
		h.cancelAtFault(env, done)
	}
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-done
		t.Errorf("loop run still running after %s: killed", deadline)
	}
	h.took = time.Since(h.started)
	startups.add(h)
	h.stdout, h.stderr = out.String(), errb.String()
	h.exit = 0
	if ee, ok := err.(*exec.ExitError); ok {
		h.exit = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	h.run, _, _ = strings.Cut(h.stdout, "\n")
	t.Logf("loop run: exit %d in %s (--timeout %s)", h.exit, h.took.Round(100*time.Millisecond), budget)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("loop run stdout:\n%s\nstderr:\n%s", h.stdout, tail(h.stderr, 3000))
		}
	})
}

var cacheDirs sync.Map

// sharedCache is a cache folder the cases of one matrix share (opencode
// installs its provider package there once).
func sharedCache(t *testing.T, name string) string {
	base := os.Getenv("LOOPKIT_AGENTS_CACHE")
	if base == "" {
		base = filepath.Join(os.TempDir(), "loopkit-agent-matrix-cache")
	}
	d := filepath.Join(base, name)
	if _, loaded := cacheDirs.LoadOrStore(d, true); !loaded {
		os.MkdirAll(d, 0o755)
	}
	return d
}

func abs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		panic(err)
	}
	return a
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

func (h *harness) runDir() string { return filepath.Join(h.ws, ".loop", "runs", h.run) }

// records reads a JSONL file of the run's store.
func (h *harness) records(name string) []map[string]any {
	f, err := os.Open(filepath.Join(h.runDir(), name))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// step is what loopkit recorded of the agent's last step: the iteration,
// or the attempt (a step that could not work, a rate limit) when none
// was counted; the step's own fields with the record's figures.
func (h *harness) step() map[string]any {
	recs := h.records("iterations.jsonl")
	if at := h.records("attempts.jsonl"); len(at) > 0 && len(recs) == 0 {
		recs = at
	}
	if len(recs) == 0 {
		h.t.Fatalf("no iteration nor attempt recorded in %s", h.runDir())
	}
	rec := recs[len(recs)-1]
	a, ok := rec["agent"].(map[string]any)
	if !ok {
		return rec
	}
	for k, v := range rec {
		if _, ok := a[k]; !ok {
			a[k] = v
		}
	}
	return a
}

// agentStream is the agent's stdout as loopkit kept it.
func (h *harness) agentStream() (stdout, stderr []byte) {
	var outs []string
	filepath.Walk(h.runDir(), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && filepath.Base(p) == "agent.stdout" {
			outs = append(outs, p)
		}
		return nil
	})
	if len(outs) == 0 {
		h.t.Fatalf("no agent.stdout kept in %s", h.runDir())
	}
	sort.Strings(outs)
	last := outs[len(outs)-1]
	stdout, _ = os.ReadFile(last)
	stderr, _ = os.ReadFile(filepath.Join(filepath.Dir(last), "agent.stderr"))
	return stdout, stderr
}

// ownTotals runs the CLI's jq filter (testdata/agents) on its stream: the
// figures the CLI itself reported, read without loopkit's parser.
func (h *harness) ownTotals(stream []byte) map[string]any {
	return jqTotals(h.t, h.cli.jq, stream)
}

func jqTotals(t *testing.T, filter string, stream []byte) map[string]any {
	src, err := os.ReadFile(filepath.Join(agentsDir, filter))
	if err != nil {
		t.Fatal(err)
	}
	q, err := gojq.Parse(string(src))
	if err != nil {
		t.Fatalf("%s: %v", filter, err)
	}
	var in []any
	dec := json.NewDecoder(bytes.NewReader(stream))
	for {
		var v any
		if err := dec.Decode(&v); err != nil {
			break
		}
		in = append(in, v)
	}
	if in == nil {
		in = []any{}
	}
	v, ok := q.Run(in).Next()
	if !ok {
		t.Fatalf("%s: no output", filter)
	}
	if err, isErr := v.(error); isErr {
		t.Fatalf("%s: %v", filter, err)
	}
	m, _ := v.(map[string]any)
	return m
}

// timings collects how long each case took, printed at the end.
type timings struct {
	mu   sync.Mutex
	rows []string
}

var timing timings

func (tm *timings) add(cli, version, name string, h *harness) {
	first := "-"
	for _, r := range h.srv.Requests() {
		if r.Fault != "" {
			first = r.At.Sub(h.started).Round(100 * time.Millisecond).String()
			break
		}
	}
	n := 0
	for _, r := range h.srv.Requests() {
		if r.Wire != "" && r.Turn >= 0 {
			n++
		}
	}
	tm.mu.Lock()
	defer tm.mu.Unlock()
	tm.rows = append(tm.rows, fmt.Sprintf("%-9s %-8s %-12s exit %-3d %7s  first fault at %-6s  %d model requests",
		cli, version, name, h.exit, h.took.Round(100*time.Millisecond), first, n))
}

func (tm *timings) print(t *testing.T) func() {
	return func() {
		tm.mu.Lock()
		defer tm.mu.Unlock()
		sort.Strings(tm.rows)
		t.Logf("agent matrix timings:\n%s", strings.Join(tm.rows, "\n"))
		if p := os.Getenv("LOOPKIT_AGENTS_REPORT"); p != "" {
			os.WriteFile(p, []byte(strings.Join(tm.rows, "\n")+"\n"), 0o644)
		}
	}
}
