package loopexport_test

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/loopkit/loopkit/internal/command"
	"github.com/loopkit/loopkit/internal/command/loopexport"
	"github.com/loopkit/loopkit/internal/command/looprecord"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/otelexport"
	"github.com/loopkit/loopkit/internal/record"
)

// The test binary doubles as loop-export and loop-record, so the tests
// run the real commands as processes against a real OTLP/HTTP receiver.
func TestMain(m *testing.M) {
	switch os.Getenv("LOOPKIT_TEST_EXEC") {
	case "loop-export":
		os.Exit(command.Main("loop-export", loopexport.Main))
	case "loop-record":
		os.Exit(command.Main("loop-record", looprecord.Main))
	}
	os.Exit(m.Run())
}

const secret = "sk-ant-abcdefghijklmnopqrstuvwxyz012345"

// run runs one of the commands with the store in root and returns stdout.
func run(t *testing.T, root, stdin string, name string, args ...string) (string, int) {
	t.Helper()
	out, errs, code := runEnv(t, root, stdin, nil, name, args...)
	if errs != "" {
		t.Logf("%s %v: %s", name, args, errs)
	}
	return out, code
}

// runEnv is run with variables added to the environment, returning stderr
// too.
func runEnv(t *testing.T, root, stdin string, env []string, name string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "LOOPKIT_TEST_EXEC="+name, "LOOP_STORE="+root, "NO_COLOR=1"), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// iteration records one iteration of run id through the real loop-record.
func iteration(t *testing.T, root, id string, n int, pass bool) {
	t.Helper()
	start := time.Now().Add(-time.Duration(10-n) * time.Minute).UnixMilli()
	exit, out := 1, "--- FAIL: TestFoo (0.00s)\n    foo_test.go:9: got 1, want 2 token="+secret+"\nFAIL\n"
	if pass {
		exit, out = 0, "ok\n"
	}
	in, outTok, cr, cc := int64(100*n), int64(20), int64(300), int64(40)
	cost := 0.5
	step := record.Step{Type: record.TypeStep, Command: "claude -p", Phase: "implementation", ExitCode: ptr(0),
		DurationMs: 2000, StartedAt: start, EndedAt: start + 2000, Format: "claude", Attempts: 1,
		LLMInputTokens: &in, LLMOutputTokens: &outTok, LLMCacheReadTokens: &cr, LLMCacheCreationTokens: &cc, CostUSD: &cost,
		ToolCalls: []record.ToolCall{
			{ToolName: "Edit", ArgumentsSummary: `{"file_path":"foo.go"}`, ResultSummary: "ok"},
			{ToolName: "Bash", ArgumentsSummary: "echo " + secret, ResultSummary: "denied", IsError: true},
		},
		FinalMessage: "I fixed it " + secret}
	val := record.Validation{Type: record.TypeValidation, Command: "go test ./...", ExitCode: ptr(exit),
		Stdout: out, StdoutBytes: int64(len(out)), DurationMs: 1000, StartedAt: start + 2100, EndedAt: start + 3100,
		FilesChanged: []string{"foo.go"}}
	sj, _ := json.Marshal(step)
	vj, _ := json.Marshal(val)
	if _, code := run(t, root, string(sj)+"\n"+string(vj)+"\n", "loop-record", "--run", id); code != 0 {
		t.Fatalf("loop-record: exit %d", code)
	}
}

func ptr[T any](v T) *T { return &v }

// receiver is an OTLP/HTTP endpoint on loopback decoding requests with
// the Collector's own pdata; it answers 503 to the first fail requests.
type receiver struct {
	mu       sync.Mutex
	srv      *httptest.Server
	requests int
	paths    []string
	headers  []http.Header
	times    []time.Time
	fail     int
	// failCode and retryAfter answer the first fail requests (503 and no
	// Retry-After by default).
	failCode   int
	retryAfter string
	spans      []ptrace.Span
	got        chan struct{}
	// discard counts iteration spans instead of keeping spans (benchmarks).
	discard bool
	iters   int
	// drain reads requests without decoding them (the exporter's own speed).
	drain bool
	// partial is a partial success: the spans each answer says it rejected.
	partial int64
	// failNth refuses that request (counting from 1) with failCode.
	failNth int
	// maxBody answers 413 to a larger request, as a proxy's limit does,
	// or with collectorLimit the Collector's 400.
	maxBody        int
	collectorLimit bool
}

// count returns and resets the iteration spans counted with discard.
func (r *receiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.iters
	r.iters = 0
	return n
}

func newReceiver(t testing.TB, fail int) *receiver {
	return newReceiverOn(t, fail, nil)
}

// newReceiverAt is a receiver listening on addr (a collector that comes up
// at a known address).
func newReceiverAt(t testing.TB, addr string) *receiver {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return newReceiverOn(t, 0, ln)
}

func newReceiverOn(t testing.TB, fail int, ln net.Listener) *receiver {
	r := &receiver{fail: fail, got: make(chan struct{}, 100)}
	r.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var in io.Reader = req.Body
		if req.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(req.Body)
			if err != nil {
				t.Errorf("receiver: %v", err)
				return
			}
			in = zr
		}
		body, _ := io.ReadAll(in)
		r.mu.Lock()
		r.paths = append(r.paths, req.URL.Path)
		r.headers = append(r.headers, req.Header.Clone())
		r.times = append(r.times, time.Now())
		r.requests++
		if r.maxBody > 0 && len(body) > r.maxBody {
			r.mu.Unlock()
			if !r.collectorLimit {
				http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
				return
			}
			// the Collector's answer: 400 and a google.rpc.Status
			w.Header().Set("Content-Type", "application/x-protobuf")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write(append([]byte{0x08, 0x03, 0x12, 28}, "http: request body too large"...))
			return
		}
		if r.requests <= r.fail || r.requests == r.failNth {
			code, after := cmp.Or(r.failCode, http.StatusServiceUnavailable), r.retryAfter
			r.mu.Unlock()
			if after != "" {
				w.Header().Set("Retry-After", after)
			}
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(code)
			fmt.Fprintln(w, "refused by the test receiver")
			return
		}
		if r.drain {
			r.mu.Unlock()
			w.Header().Set("Content-Type", "application/x-protobuf")
			return
		}
		ereq := ptraceotlp.NewExportRequest()
		if err := ereq.UnmarshalProto(body); err != nil {
			r.mu.Unlock()
			t.Errorf("receiver: %v", err)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		if r.discard {
			r.iters += countIter(flatten(ereq.Traces()))
		} else {
			r.spans = append(r.spans, flatten(ereq.Traces())...)
		}
		r.mu.Unlock()
		eresp := ptraceotlp.NewExportResponse()
		if r.partial > 0 {
			eresp.PartialSuccess().SetRejectedSpans(r.partial)
			eresp.PartialSuccess().SetErrorMessage("span too old\x1b[2J")
		}
		resp, _ := eresp.MarshalProto()
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(resp)
		select { // a wake-up for the waiting test; never block the handler
		case r.got <- struct{}{}:
		default:
		}
	}))
	if ln != nil {
		r.srv.Listener.Close()
		r.srv.Listener = ln
	}
	r.srv.Start()
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) url() string { return r.srv.URL + "/v1/traces" }

func (r *receiver) take() []ptrace.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.spans
	r.spans = nil
	return s
}

func flatten(td ptrace.Traces) []ptrace.Span {
	var out []ptrace.Span
	for i := 0; i < td.ResourceSpans().Len(); i++ {
		rs := td.ResourceSpans().At(i)
		for j := 0; j < rs.ScopeSpans().Len(); j++ {
			ss := rs.ScopeSpans().At(j)
			for k := 0; k < ss.Spans().Len(); k++ {
				out = append(out, ss.Spans().At(k))
			}
		}
	}
	return out
}

func intAttr(t *testing.T, s ptrace.Span, key string) int64 {
	t.Helper()
	v, ok := s.Attributes().Get(key)
	if !ok {
		t.Fatalf("%s: no attribute %s", s.Name(), key)
	}
	return v.Int()
}

func fixture(t *testing.T) (root string, created int64) {
	root = filepath.Join(t.TempDir(), ".loop")
	iteration(t, root, "fix", 1, false)
	iteration(t, root, "fix", 2, true)
	if _, code := run(t, root, "", "loop-record", "--run", "fix", "--status", "completed"); code != 0 {
		t.Fatalf("status: exit %d", code)
	}
	data, err := os.ReadFile(filepath.Join(root, "runs", "fix", "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var meta record.Run
	if err := json.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	return root, meta.CreatedAt
}

func TestExportToReceiver(t *testing.T) {
	root, created := fixture(t)
	rcv := newReceiver(t, 2) // the first two requests are refused: retried
	if _, code := run(t, root, "", "loop-export", "fix", "--endpoint", rcv.url(), "--retry-for", "30s"); code != 0 {
		t.Fatalf("loop-export: exit %d", code)
	}
	if rcv.requests != 3 {
		t.Errorf("receiver saw %d requests, want 2 refused and 1 taken", rcv.requests)
	}
	spans := rcv.take()
	tid := otelexport.TraceID("fix", created)
	byID := map[pcommon.SpanID]ptrace.Span{}
	for _, s := range spans {
		if [16]byte(s.TraceID()) != [16]byte(tid) {
			t.Errorf("%s: trace %s, want the run's %s", s.Name(), s.TraceID(), tid)
		}
		byID[s.SpanID()] = s
	}
	// run → iteration → agent step (→ tool calls) / validation
	var root0 ptrace.Span
	kids := map[pcommon.SpanID][]ptrace.Span{}
	for _, s := range spans {
		if s.ParentSpanID().IsEmpty() {
			root0 = s
			continue
		}
		if _, ok := byID[s.ParentSpanID()]; !ok {
			t.Errorf("%s: parent %s not exported", s.Name(), s.ParentSpanID())
		}
		kids[s.ParentSpanID()] = append(kids[s.ParentSpanID()], s)
	}
	if root0.Name() != "loop.run" {
		t.Fatalf("root span %q, want loop.run", root0.Name())
	}
	iters := kids[root0.SpanID()]
	if len(iters) != 2 {
		t.Fatalf("%d spans under the run, want 2 iterations", len(iters))
	}
	for _, it := range iters {
		n := intAttr(t, it, "loopkit.iteration")
		var names []string
		for _, k := range kids[it.SpanID()] {
			names = append(names, k.Name())
			if k.Name() == "invoke_agent claude" {
				checkAgent(t, k, n, kids[k.SpanID()])
				if !k.StartTimestamp().AsTime().Before(k.EndTimestamp().AsTime()) || k.EndTimestamp().AsTime().Sub(k.StartTimestamp().AsTime()) != 2*time.Second {
					t.Errorf("agent span %v..%v, want the step's 2 s", k.StartTimestamp(), k.EndTimestamp())
				}
			}
		}
		slices.Sort(names)
		if !slices.Equal(names, []string{"invoke_agent claude", "loop.validation"}) {
			t.Errorf("iteration %d has %v", n, names)
		}
		wantErr := n == 1
		if (it.Status().Code() == ptrace.StatusCodeError) != wantErr {
			t.Errorf("iteration %d status %v", n, it.Status().Code())
		}
	}
	// no content by default: neither the output, the message nor the secret
	all, _ := (&ptrace.JSONMarshaler{}).MarshalTraces(tracesOf(spans))
	for _, bad := range []string{secret, "got 1, want 2", "I fixed it", "foo.go\\\""} {
		if bytes.Contains(all, []byte(bad)) {
			t.Errorf("export without --include-content carries %q", bad)
		}
	}
	// the checkpoint: sending again sends nothing new
	if _, code := run(t, root, "", "loop-export", "fix", "--endpoint", rcv.url()); code != 0 {
		t.Fatalf("second loop-export: exit %d", code)
	}
	if again := rcv.take(); len(again) != 0 {
		t.Errorf("a second export past the checkpoint sent %d spans", len(again))
	}
}

func checkAgent(t *testing.T, s ptrace.Span, n int64, tools []ptrace.Span) {
	t.Helper()
	want := map[string]int64{
		"gen_ai.usage.input_tokens":                100*n + 300 + 40, // the conventions count cached tokens in
		"gen_ai.usage.output_tokens":               20,
		"gen_ai.usage.cache_read.input_tokens":     300,
		"gen_ai.usage.cache_creation.input_tokens": 40,
		"loopkit.llm_input_tokens":                 100 * n,
	}
	for k, v := range want {
		if got := intAttr(t, s, k); got != v {
			t.Errorf("iteration %d: %s = %d, want %d", n, k, got, v)
		}
	}
	if p, _ := s.Attributes().Get("gen_ai.provider.name"); p.Str() != "anthropic" {
		t.Errorf("provider %q", p.Str())
	}
	if len(tools) != 2 || tools[0].Name() == tools[1].Name() {
		t.Fatalf("iteration %d: %d tool spans", n, len(tools))
	}
	for _, tool := range tools {
		name, _ := tool.Attributes().Get("gen_ai.tool.name")
		if (name.Str() == "Bash") != (tool.Status().Code() == ptrace.StatusCodeError) {
			t.Errorf("tool %s status %v", name.Str(), tool.Status().Code())
		}
	}
}

func tracesOf(spans []ptrace.Span) ptrace.Traces {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	for _, s := range spans {
		s.CopyTo(ss.Spans().AppendEmpty())
	}
	return td
}

// TestStdoutIdempotent: --stdout lines are what the Collector's file
// receiver reads, and two exports give the same ids.
func TestStdoutIdempotent(t *testing.T) {
	root, _ := fixture(t)
	ids := func(args ...string) []string {
		out, code := run(t, root, "", "loop-export", append([]string{"fix", "--stdout"}, args...)...)
		if code != 0 {
			t.Fatalf("loop-export --stdout: exit %d", code)
		}
		var got []string
		sc := bufio.NewScanner(strings.NewReader(out))
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(sc.Bytes())
			if err != nil {
				t.Fatalf("not OTLP/JSON: %v", err)
			}
			for _, s := range flatten(td) {
				got = append(got, s.SpanID().String()+" "+s.Name())
			}
		}
		slices.Sort(got)
		return got
	}
	first, second := ids(), ids()
	if len(first) != 11 || !slices.Equal(first, second) {
		t.Errorf("two exports differ or are not 11 spans:\n%v\n%v", first, second)
	}
	// with content: the messages go, the secret does not
	out, _ := run(t, root, "", "loop-export", "fix", "--stdout", "--include-content", "--redact", "foo_test")
	if strings.Contains(out, secret) || !strings.Contains(out, "I fixed it [REDACTED]") || strings.Contains(out, "foo_test.go") {
		t.Errorf("--include-content: secret or --redact match sent, or message missing")
	}
}

// TestFromRecords: IterationLogs on stdin land in the trace the store
// export uses.
func TestFromRecords(t *testing.T) {
	root, created := fixture(t)
	logs, err := os.ReadFile(filepath.Join(root, "runs", "fix", "iterations.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	out, code := run(t, root, string(logs), "loop-export", "--from", "-", "--stdout")
	if code != 0 {
		t.Fatalf("--from -: exit %d", code)
	}
	want := otelexport.TraceID("fix", created).String()
	if !strings.Contains(out, `"traceId":"`+want+`"`) || strings.Count(out, "loop.iteration") != 2 {
		t.Errorf("--from - did not export both iterations into trace %s", want)
	}
	if _, code := run(t, root, "{\"nonsense\":1}\n", "loop-export", "--from", "-", "--stdout"); code != exitcode.BadInput {
		t.Errorf("a line that is no record: exit %d, want %d", code, exitcode.BadInput)
	}
}

// TestFollow: a newly committed iteration is sent while --follow runs, and
// a restarted --follow sends neither a gap nor a duplicate.
func TestFollow(t *testing.T) {
	root := filepath.Join(t.TempDir(), ".loop")
	iteration(t, root, "live", 1, false)
	rcv := newReceiver(t, 0)
	follow := func(interval string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "live", "--follow", "--interval", interval, "--endpoint", rcv.url())
		cmd.Env = append(os.Environ(), "LOOPKIT_TEST_EXEC=loop-export", "LOOP_STORE="+root)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	wait := func(what string, n int) []ptrace.Span {
		t.Helper()
		var got []ptrace.Span
		deadline := time.After(20 * time.Second)
		for countIter(got) < n {
			select {
			case <-rcv.got:
				got = append(got, rcv.take()...)
			case <-deadline:
				t.Fatalf("%s: %d iterations received, want %d", what, countIter(got), n)
			}
		}
		return got
	}
	cmd := follow("100ms")
	wait("first", 1)
	start := time.Now()
	iteration(t, root, "live", 2, false)
	got := wait("second", 1)
	t.Logf("iteration 2 received %v after its commit", time.Since(start))
	if n := intAttr(t, iterSpans(got)[0], "loopkit.iteration"); n != 2 {
		t.Errorf("follow sent iteration %d, want 2", n)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil { // docs/cli.md: a signal is how a follow ends
		t.Errorf("--follow stopped by SIGTERM: %v, want exit 0", err)
	}

	iteration(t, root, "live", 3, true) // while nobody follows
	// an interval of an hour: after its first look, only the last look that
	// a signal triggers can send anything
	cmd = follow("1h")
	got = wait("after restart", 1)
	time.Sleep(300 * time.Millisecond)
	got = append(got, rcv.take()...)
	if its := iterSpans(got); len(its) != 1 || intAttr(t, its[0], "loopkit.iteration") != 3 {
		t.Errorf("restarted follow sent %d iteration spans, want iteration 3 alone", len(its))
	}
	if _, code := run(t, root, "", "loop-record", "--run", "live", "--status", "completed"); code != 0 {
		t.Fatalf("status: exit %d", code)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
	var roots int
	for _, s := range rcv.take() {
		if s.Name() == "loop.run" {
			roots++
		}
	}
	if roots != 1 {
		t.Errorf("a signal after the run ended: %d root spans sent, want the last look to send 1", roots)
	}
}

func iterSpans(spans []ptrace.Span) []ptrace.Span {
	var out []ptrace.Span
	for _, s := range spans {
		if s.Name() == "loop.iteration" {
			out = append(out, s)
		}
	}
	return out
}

func countIter(spans []ptrace.Span) int { return len(iterSpans(spans)) }

func TestUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--all", "x"},
		{"--from", "-", "x"},
		{"--since", "1h", "x"},
		{"--stdout", "--endpoint", "http://127.0.0.1:1", "x"},
		{"--endpoint", "not a url", "x"},
		{"../x"},
	} {
		if _, code := run(t, t.TempDir(), "", "loop-export", args...); code != exitcode.Usage {
			t.Errorf("loop-export %v: exit %d, want %d", args, code, exitcode.Usage)
		}
	}
}

// TestHungCollectorDoesNotHoldTheLoop: a collector that takes requests and
// never answers leaves loop-export blocked in a send, and the loop's own
// writes go on: the export is a separate process that takes no lock of
// the store (a lock held across the send would block loop-record here).
func TestHungCollectorDoesNotHoldTheLoop(t *testing.T) {
	root := filepath.Join(t.TempDir(), ".loop")
	iteration(t, root, "live", 1, false)
	addr, accepted := hungCollector(t)
	cmd := exec.Command(os.Args[0], "live", "--follow", "--interval", "50ms", "--timeout", "1h",
		"--endpoint", "http://"+addr+"/v1/traces")
	cmd.Env = append(os.Environ(), "LOOPKIT_TEST_EXEC=loop-export", "LOOP_STORE="+root)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	waitConnected(t, accepted)
	for n := 2; n <= 4; n++ {
		iteration(t, root, "live", n, n == 4) // each must commit while the export hangs
	}
	if _, code := run(t, root, "", "loop-record", "--run", "live", "--status", "completed"); code != 0 {
		t.Fatalf("status while the export hangs: exit %d", code)
	}
	if cmd.ProcessState != nil {
		t.Fatal("loop-export exited; it should still be waiting on the collector")
	}
}

// --from reads a store's records, which the agent can plant in: a FIFO
// (os.Open waited for a writer forever), a link to /etc/passwd, and a
// line without end (ReadBytes held it whole) are refused at once.
func TestFromHostile(t *testing.T) {
	root, _ := fixture(t)
	path := filepath.Join(t.TempDir(), "records.jsonl")
	for kind, plant := range map[string]func() error{
		"fifo": func() error { return syscall.Mkfifo(path, 0o600) },
		"link": func() error { return os.Symlink("/etc/passwd", path) },
		"huge": func() error { // sparse: one line of zeros past the cap
			f, err := os.Create(path)
			if err == nil {
				err = f.Truncate(64<<20 + 1) // the cap, maxRecordLine
				f.Close()
			}
			return err
		},
	} {
		os.Remove(path)
		if err := plant(); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, os.Args[0], "--from", path, "--stdout")
		cmd.Env = append(os.Environ(), "LOOPKIT_TEST_EXEC=loop-export", "LOOP_STORE="+root, "NO_COLOR=1")
		var errb bytes.Buffer
		cmd.Stderr = &errb
		err := cmd.Run()
		timedOut := ctx.Err() != nil
		cancel()
		if timedOut {
			t.Fatalf("%s: loop-export --from still running after a minute", kind)
		}
		if err == nil || !strings.Contains(errb.String(), path) {
			t.Errorf("%s: %v, stderr %q: want it refused, naming the file", kind, err, errb.String())
		}
	}
}

// TestFollowStdoutSendsOnce: --follow --stdout keeps no checkpoint on
// disk, and each poll wrote every span of the run again (a file collector
// filled with the same iterations twice a second), into a 64 KiB buffer
// that held a new iteration back from the pipe; each is written once, as
// it comes.
func TestFollowStdoutSendsOnce(t *testing.T) {
	root := filepath.Join(t.TempDir(), ".loop")
	iteration(t, root, "live", 1, false)
	cmd := exec.Command(os.Args[0], "live", "--follow", "--stdout", "--interval", "20ms")
	cmd.Env = append(os.Environ(), "LOOPKIT_TEST_EXEC=loop-export", "LOOP_STORE="+root)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// a bound for a line that never comes (held in a buffer): killed, the
	// read below ends
	defer time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() }).Stop()
	lines := bufio.NewReader(out)
	seen := map[string]int{}
	read := func(until string) {
		t.Helper()
		for seen[until] == 0 {
			line, err := lines.ReadString('\n')
			if err == io.EOF && until == "end" {
				return
			}
			if err != nil {
				t.Fatalf("waiting for %s: %v", until, err)
			}
			for n := 1; n <= 2; n++ {
				if strings.Contains(line, fmt.Sprintf(`{"key":"loopkit.iteration","value":{"intValue":"%d"}}`, n)) {
					seen[fmt.Sprint(n)]++
				}
			}
		}
	}
	read("1")
	iteration(t, root, "live", 2, false)
	read("2")
	_ = cmd.Process.Signal(syscall.SIGTERM)
	read("end") // to EOF: the last look's line too
	if seen["1"] != 1 || seen["2"] != 1 {
		t.Errorf("iteration 1 written %d times, 2 written %d times; want each once", seen["1"], seen["2"])
	}
}
