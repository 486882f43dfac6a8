package loopexport_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/exitcode"
)

// TestRedirectNotFollowedAsGet: an auth proxy answers the POST with a 302
// to its login page, which answers a GET with 200. Go followed it as a
// GET without the spans, and the export exited 0 with its checkpoint
// moved on: nothing had been delivered.
func TestRedirectNotFollowedAsGet(t *testing.T) {
	root, _ := fixture(t)
	var posts int
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodPost {
			posts++
			http.Redirect(w, req, "/login", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintln(w, "<html>sign in</html>")
	}))
	defer proxy.Close()
	for try := 1; try <= 2; try++ { // nothing was taken: the second tries again
		_, errs, code := runEnv(t, root, "", nil, "loop-export", "fix", "--endpoint", proxy.URL)
		if code != 1 || !strings.Contains(errs, "302 Found") || !strings.Contains(errs, `"/login"`) {
			t.Errorf("try %d: exit %d, stderr %q: want exit 1 naming the 302 and where it leads", try, code, errs)
		}
		if posts != try {
			t.Errorf("try %d: %d posts, want %d", try, posts, try)
		}
	}
}

// TestRedirectKeepsPostOnItsHost: a 307 on the collector's own host is
// followed with the spans; one to another host is not (the headers carry
// the backend's API key), and that host sees nothing.
func TestRedirectKeepsPostOnItsHost(t *testing.T) {
	root, _ := fixture(t)
	rcv := newReceiver(t, 0)
	same := httptest.NewServer(http.RedirectHandler(rcv.url(), http.StatusTemporaryRedirect))
	defer same.Close()
	if _, code := run(t, root, "", "loop-export", "fix", "--endpoint", same.URL); code != 0 || countIter(rcv.take()) != 2 {
		t.Errorf("a 307 to the same host: exit %d, want the spans delivered there", code)
	}
	rmCheckpoints(t, root)
	// the receiver by another name of loopback: another host to the client
	other := strings.Replace(rcv.url(), "127.0.0.1", "localhost", 1)
	away := httptest.NewServer(http.RedirectHandler(other, http.StatusPermanentRedirect))
	defer away.Close()
	_, errs, code := runEnv(t, root, "", nil, "loop-export", "fix", "--endpoint", away.URL, "--header", "api-key=k")
	if code != 1 || !strings.Contains(errs, "308 Permanent Redirect") || len(rcv.take()) != 0 {
		t.Errorf("a 308 to another host: exit %d, stderr %q: want it refused, the other host untouched", code, errs)
	}
}

// TestPartialSuccess: a collector that takes the request but rejects
// some spans (a 200 with partial_success) was a silent exit 0. The
// rejection is final (OTLP: no retry), so the checkpoint moves on, and
// the exit status and one line say what was lost, its text escaped.
func TestPartialSuccess(t *testing.T) {
	root, _ := fixture(t)
	rcv := newReceiver(t, 0)
	rcv.partial = 2
	_, errs, code := runEnv(t, root, "", nil, "loop-export", "fix", "--endpoint", rcv.url())
	if code != 1 || !strings.Contains(errs, "rejected 2 spans: span too old") || strings.Contains(errs, "\x1b") {
		t.Errorf("a partial success: exit %d, stderr %q: want exit 1 naming the rejected spans", code, errs)
	}
	if _, code := run(t, root, "", "loop-export", "fix", "--endpoint", rcv.url()); code != 0 || rcv.requests != 1 {
		t.Errorf("again: exit %d after %d requests, want 0 and no new request", code, rcv.requests)
	}
}

// TestFollowOutageSendsOnce: while the collector refuses, a follow of two
// runs kept the failed spans in memory and sent them with the next run's
// delivery, then mapped them again from the unmoved marks: every span
// reached the collector twice.
func TestFollowOutageSendsOnce(t *testing.T) {
	root := filepath.Join(t.TempDir(), ".loop")
	for _, id := range []string{"a", "b"} {
		iteration(t, root, id, 1, true)
		if _, code := run(t, root, "", "loop-record", "status", "completed", "--run", id); code != 0 {
			t.Fatalf("status: exit %d", code)
		}
	}
	rcv := newReceiver(t, 2) // 503, not retried: the next poll sends
	cmd := exec.Command(os.Args[0], "--all", "--follow", "--interval", "50ms", "--retry-for", "0", "--endpoint", rcv.url())
	cmd.Env = append(os.Environ(), "LOOPKIT_TEST_EXEC=loop-export", "LOOP_STORE="+root)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	seen := map[string]int{}
	roots := 0
	deadline := time.After(30 * time.Second)
	for roots < 2 {
		select {
		case <-rcv.got:
		case <-deadline:
			t.Fatalf("%d root spans received, want 2", roots)
		}
		for _, s := range rcv.take() {
			seen[s.SpanID().String()]++
			if s.Name() == "loop.run" {
				roots++
			}
		}
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
	for _, s := range rcv.take() {
		seen[s.SpanID().String()]++
	}
	for id, n := range seen {
		if n > 1 {
			t.Errorf("span %s sent %d times", id, n)
		}
	}
}

// TestInterruptedExport: SIGINT while a send hangs ended a one-shot export
// with exit 1 and Go's "context canceled"; it is 130 and a line saying
// which run was not sent and how to send it.
func TestInterruptedExport(t *testing.T) {
	root, _ := fixture(t)
	addr, accepted := hungCollector(t)
	cmd := exec.Command(os.Args[0], "fix", "--timeout", "1h", "--endpoint", "http://"+addr)
	cmd.Env = append(os.Environ(), "LOOPKIT_TEST_EXEC=loop-export", "LOOP_STORE="+root, "NO_COLOR=1")
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	waitConnected(t, accepted)
	_ = cmd.Process.Signal(syscall.SIGINT)
	_ = cmd.Wait()
	errs := errb.String()
	if code := cmd.ProcessState.ExitCode(); code != exitcode.Interrupt || !strings.Contains(errs, "stopped by SIGINT before run fix was sent whole") || strings.Contains(errs, "context canceled") {
		t.Errorf("SIGINT mid-send: exit %d, stderr %q: want %d and the run named", code, errs, exitcode.Interrupt)
	}
}

// hungCollector listens on loopback and holds every connection open,
// never answering; the connections are closed with the test.
func hungCollector(t *testing.T) (string, chan net.Conn) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	accepted := make(chan net.Conn, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			select {
			case accepted <- c:
			default:
			}
		}
	}()
	return ln.Addr().String(), accepted
}

func waitConnected(t *testing.T, accepted chan net.Conn) {
	t.Helper()
	select {
	case <-accepted:
	case <-time.After(20 * time.Second):
		t.Fatal("loop-export never connected")
	}
}

// TestBatchFailureResumes: a run of several batches where the collector
// refuses the third request. The first export fails, naming the request
// (it blamed "iterations.jsonl: line 410"); the second sends what the
// first did not, and every span reaches the collector once (the
// checkpoint moved only at the end of a delivery, so the batches taken
// before the failure were sent again).
func TestBatchFailureResumes(t *testing.T) {
	root := filepath.Join(t.TempDir(), ".loop")
	bigRun(t, root, 1000) // 5 spans an iteration: about ten requests
	rcv := newReceiver(t, 0)
	rcv.failNth, rcv.failCode = 3, http.StatusBadRequest
	_, errs, code := runEnv(t, root, "", nil, "loop-export", "big", "--endpoint", rcv.url())
	if code != 1 || strings.Contains(errs, "iterations.jsonl") {
		t.Fatalf("the third request refused: exit %d, stderr %q: want 1, the request blamed, not a record", code, errs)
	}
	if _, code := run(t, root, "", "loop-export", "big", "--endpoint", rcv.url()); code != 0 {
		t.Fatalf("again: exit %d, want 0", code)
	}
	seen := map[string]int{}
	for _, s := range rcv.take() {
		seen[s.SpanID().String()]++
	}
	if len(seen) != 5*1000+1 {
		t.Errorf("%d distinct spans received, want %d", len(seen), 5*1000+1)
	}
	twice := 0
	for _, n := range seen {
		if n > 1 {
			twice++
		}
	}
	if twice > 0 {
		t.Errorf("%d spans sent more than once", twice)
	}
}

// TestHTMLAnswerIsNoDelivery: a web server's catch-all page answering
// the post with 200 (a wrong port, an ingress's default backend) was an
// exit 0 and a checkpoint moved on; a self-signed collector's TLS error
// names the variable that trusts its CA.
func TestHTMLAnswerIsNoDelivery(t *testing.T) {
	root, _ := fixture(t)
	page := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintln(w, "<html>welcome</html>")
	}
	web := httptest.NewServer(http.HandlerFunc(page))
	defer web.Close()
	for try := 1; try <= 2; try++ {
		_, errs, code := runEnv(t, root, "", nil, "loop-export", "fix", "--endpoint", web.URL)
		if code != 1 || !strings.Contains(errs, "200 OK with an HTML page") {
			t.Errorf("try %d: exit %d, stderr %q: want exit 1 naming the HTML answer", try, code, errs)
		}
	}
	tlsWeb := httptest.NewTLSServer(http.HandlerFunc(page))
	defer tlsWeb.Close()
	_, errs, code := runEnv(t, root, "", nil, "loop-export", "fix", "--endpoint", tlsWeb.URL)
	if code != 1 || !strings.Contains(errs, "give the collector's CA in OTEL_EXPORTER_OTLP_CERTIFICATE") {
		t.Errorf("a self-signed collector: exit %d, stderr %q: want the variable named", code, errs)
	}
}

// TestOneRunDoesNotStopTheOthers: with --all, a run being made (no
// run.json yet), a damaged run.json, or a run whose spans the collector
// refuses (400) stopped the export of every run after it, on every try.
// Now the run being made is skipped, the others are sent, and the exit
// status and a line name each run that failed.
func TestOneRunDoesNotStopTheOthers(t *testing.T) {
	root, _ := fixture(t) // "fix"
	iteration(t, root, "good", 1, true)
	for dir, runJSON := range map[string]string{"0making": "", "0damaged": "{"} {
		if err := os.MkdirAll(filepath.Join(root, "runs", dir), 0o700); err != nil {
			t.Fatal(err)
		}
		if runJSON != "" {
			if err := os.WriteFile(filepath.Join(root, "runs", dir, "run.json"), []byte(runJSON), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	rcv := newReceiver(t, 1)
	rcv.failCode = http.StatusBadRequest // the first run sent: "fix"
	_, errs, code := runEnv(t, root, "", nil, "loop-export", "--all", "--endpoint", rcv.url())
	if code != 1 || !strings.Contains(errs, "0damaged") || !strings.Contains(errs, "export fix:") || strings.Contains(errs, "0making") {
		t.Errorf("exit %d, stderr %q: want 1 naming the damaged run and the refused one", code, errs)
	}
	if got := iterSpans(rcv.take()); len(got) != 1 || intAttr(t, got[0], "loopkit.iteration") != 1 {
		t.Errorf("%d iteration spans received, want run good's one", len(got))
	}
}

// TestRequestTooLarge: a proxy's body limit (nginx's 1 MiB) answers 413
// to a full batch, the Collector's (max_request_body_size) a 400 whose
// protobuf Status said why (the message showed only "400 Bad Request"),
// and the run was never sent, on every try. A request too large is sent
// again in halves: every span arrives once. A single span over the limit
// is a failure naming the answer.
func TestRequestTooLarge(t *testing.T) {
	root := filepath.Join(t.TempDir(), ".loop")
	bigRun(t, root, 300) // 1,501 spans: three requests
	for _, collector := range []bool{false, true} {
		rcv := newReceiver(t, 0)
		rcv.maxBody, rcv.collectorLimit = 40<<10, collector
		if _, code := run(t, root, "", "loop-export", "big", "--endpoint", rcv.url()); code != 0 {
			t.Fatalf("collector %v: exit %d, want the spans sent in smaller requests", collector, code)
		}
		seen := map[string]int{}
		for _, s := range rcv.take() {
			seen[s.SpanID().String()]++
		}
		if len(seen) != 1501 {
			t.Errorf("collector %v: %d distinct spans received, want 1501", collector, len(seen))
		}
		for id, n := range seen {
			if n > 1 {
				t.Errorf("span %s sent %d times", id, n)
			}
		}
		rmCheckpoints(t, root)
		rcv.maxBody = 100
		_, errs, code := runEnv(t, root, "", nil, "loop-export", "big", "--endpoint", rcv.url())
		want := map[bool]string{false: "413 Request Entity Too Large", true: "400 Bad Request: http: request body too large"}[collector]
		if code != 1 || !strings.Contains(errs, want) {
			t.Errorf("a span over the limit: exit %d, stderr %q, want %q", code, errs, want)
		}
		rmCheckpoints(t, root)
	}
}

// TestFollowIdleRunsNotReread: a follow read every run's records again at
// each interval though nothing had changed (500 idle runs: a quarter of a
// core). Run a's records are overwritten with garbage of the same size
// and time: read again, they would be a warning; run z, read after a in
// each pass, shows that passes went by.
func TestFollowIdleRunsNotReread(t *testing.T) {
	root := filepath.Join(t.TempDir(), ".loop")
	iteration(t, root, "a", 1, true)
	iteration(t, root, "z", 1, true)
	rcv := newReceiver(t, 0)
	cmd := exec.Command(os.Args[0], "--all", "--follow", "--interval", "20ms", "--endpoint", rcv.url())
	cmd.Env = append(os.Environ(), "LOOPKIT_TEST_EXEC=loop-export", "LOOP_STORE="+root, "NO_COLOR=1")
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	waitIters := func(n int) {
		t.Helper()
		got := 0
		deadline := time.After(20 * time.Second)
		for got < n {
			select {
			case <-rcv.got:
				got += countIter(rcv.take())
			case <-deadline:
				t.Fatalf("%d iterations received, want %d", got, n)
			}
		}
	}
	waitIters(2)
	path := filepath.Join(root, "runs", "a", "iterations.jsonl")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// stopped while the file is rewritten: a pass between the write and
	// the restored time saw a changed file (under load it did), and was
	// right to read it again
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Repeat("x", int(fi.Size())-1)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	for n := 2; n <= 3; n++ {
		iteration(t, root, "z", n, true)
		waitIters(1)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
	if strings.Contains(errb.String(), "iterations.jsonl") {
		t.Errorf("an unchanged run was read again: %s", errb.String())
	}
}
