package loopexport_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/otelexport"
)

// jaegerConfig is Jaeger v2 (an OpenTelemetry Collector) with in-memory
// storage, an OTLP/HTTP receiver and the query API, on loopback ports.
const jaegerConfig = `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
extensions:
  jaeger_storage:
    backends:
      mem:
        memory:
          max_traces: 1000
  jaeger_query:
    storage:
      traces: mem
    http:
      endpoint: 127.0.0.1:%d
    grpc:
      endpoint: 127.0.0.1:%d
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%d
processors:
  batch:
    timeout: 100ms
exporters:
  jaeger_storage_exporter:
    trace_storage: mem
`

// TestJaeger exports a run to a real Jaeger v2 and reads the trace back
// through its query API: the span tree and the GenAI attributes as
// docs/otel.md gives them. LOOPKIT_JAEGER names the jaeger binary (.ci/run
// builds github.com/jaegertracing/jaeger/cmd/jaeger once and caches it).
func TestJaeger(t *testing.T) {
	query, otlp, exited := startJaeger(t, "")
	root, created := fixture(t)
	// a base URL, as a person gives it: the exporter adds /v1/traces
	if _, code := run(t, root, "", "loop-export", "fix", "--endpoint", otlp); code != 0 {
		t.Fatalf("loop-export: exit %d", code)
	}
	tid := otelexport.TraceID("fix", created).String()
	var tr jaegerTrace
	poll(t, exited, 30*time.Second, "the trace in jaeger", func() bool {
		tr = getTrace(query, tid)
		return len(tr.Spans) >= 11 // run, 2 × (iteration, agent, 2 tools, validation)
	})

	byID := map[string]jaegerSpan{}
	for _, s := range tr.Spans {
		byID[s.SpanID] = s
	}
	kids := map[string][]string{}
	var roots []string
	for _, s := range tr.Spans {
		parent := ""
		for _, r := range s.References {
			if r.RefType == "CHILD_OF" {
				parent = r.SpanID
			}
		}
		if parent == "" {
			roots = append(roots, s.OperationName)
			continue
		}
		kids[byID[parent].OperationName] = append(kids[byID[parent].OperationName], s.OperationName)
	}
	for k := range kids {
		sort.Strings(kids[k])
	}
	want := map[string][]string{
		"loop.run":            {"loop.iteration", "loop.iteration"},
		"loop.iteration":      {"invoke_agent claude", "invoke_agent claude", "loop.validation", "loop.validation"},
		"invoke_agent claude": {"execute_tool Bash", "execute_tool Bash", "execute_tool Edit", "execute_tool Edit"},
	}
	if len(roots) != 1 || roots[0] != "loop.run" {
		t.Errorf("root spans %v, want [loop.run]", roots)
	}
	for parent, w := range want {
		if strings.Join(kids[parent], ",") != strings.Join(w, ",") {
			t.Errorf("under %s: %v, want %v", parent, kids[parent], w)
		}
	}
	for _, s := range tr.Spans {
		tags := s.tags()
		switch {
		case s.OperationName == "invoke_agent claude":
			for k, v := range map[string]string{"gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": "anthropic",
				"gen_ai.agent.name": "claude", "gen_ai.usage.output_tokens": "20", "gen_ai.usage.cache_read.input_tokens": "300",
				"gen_ai.usage.cache_creation.input_tokens": "40"} {
				if tags[k] != v {
					t.Errorf("%s: %s = %q, want %q", s.OperationName, k, tags[k], v)
				}
			}
			if tags["gen_ai.usage.input_tokens"] != "440" && tags["gen_ai.usage.input_tokens"] != "540" {
				t.Errorf("agent input tokens %q, want 100n + 300 cached + 40 written", tags["gen_ai.usage.input_tokens"])
			}
			if strings.Contains(fmt.Sprint(tags), secret) {
				t.Errorf("the secret reached jaeger: %v", tags)
			}
		case strings.HasPrefix(s.OperationName, "execute_tool "):
			if tags["gen_ai.operation.name"] != "execute_tool" || "execute_tool "+tags["gen_ai.tool.name"] != s.OperationName {
				t.Errorf("%s: tags %v", s.OperationName, tags)
			}
		}
	}
}

// TestJaegerDownThenLimited: against the real Collector, down when the
// export starts and then taking at most 60 KB a request (its
// max_request_body_size, answered with a 400), a run of 1,501 spans is
// retried until Jaeger is up, split below the limit, and arrives whole.
func TestJaegerDownThenLimited(t *testing.T) {
	query, otlp, exited, start := newJaeger(t, "        max_request_body_size: 60000\n")
	root := filepath.Join(t.TempDir(), ".loop")
	bigRun(t, root, 300)
	cmd := exec.Command(os.Args[0], "big", "--endpoint", otlp, "--retry-for", "2m")
	cmd.Env = append(os.Environ(), "LOOPKIT_TEST_EXEC=loop-export", "LOOP_STORE="+root)
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() { _ = cmd.Process.Kill(); <-done; done <- nil }()
	start()
	select {
	case err := <-done:
		done <- err
		if err != nil {
			t.Fatalf("loop-export: %v: %s", err, errb.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("loop-export still running after 2 minutes")
	}
	data, err := os.ReadFile(filepath.Join(root, "runs", "big", "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		CreatedAt int64 `json:"created_at"`
	}
	_ = json.Unmarshal(data, &meta)
	tid := otelexport.TraceID("big", meta.CreatedAt).String()
	poll(t, exited, 30*time.Second, "the 1,501 spans in jaeger", func() bool {
		return len(getTrace(query, tid).Spans) == 1501
	})
}

type jaegerTrace struct {
	Spans []jaegerSpan `json:"spans"`
}

type jaegerSpan struct {
	SpanID        string `json:"spanID"`
	OperationName string `json:"operationName"`
	References    []struct {
		RefType string `json:"refType"`
		SpanID  string `json:"spanID"`
	} `json:"references"`
	Tags []struct {
		Key   string `json:"key"`
		Value any    `json:"value"`
	} `json:"tags"`
}

func (s jaegerSpan) tags() map[string]string {
	m := map[string]string{}
	for _, t := range s.Tags {
		m[t.Key] = fmt.Sprint(t.Value)
	}
	return m
}

// getTrace reads a trace through Jaeger's HTTP query API.
func getTrace(query, id string) jaegerTrace {
	resp, err := http.Get(query + "/api/traces/" + id)
	if err != nil {
		return jaegerTrace{}
	}
	defer resp.Body.Close()
	var body struct {
		Data []jaegerTrace `json:"data"`
	}
	if json.NewDecoder(resp.Body).Decode(&body) != nil || len(body.Data) == 0 {
		return jaegerTrace{}
	}
	return body.Data[0]
}

// poll asks ok until it holds, jaeger exits or the deadline passes.
func poll(t *testing.T, exited chan error, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("jaeger exited (%v) while waiting for %s", err, what)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s after %v", what, d)
		}
	}
}

// startJaeger starts Jaeger (LOOPKIT_JAEGER) with its OTLP/HTTP receiver
// configured by receiverExtra (lines under its endpoint, indented), and
// returns once its query API answers: its URL, the receiver's base URL,
// and a channel that receives its exit.
func startJaeger(t *testing.T, receiverExtra string) (query, otlp string, exited chan error) {
	query, otlp, exited, start := newJaeger(t, receiverExtra)
	start()
	return query, otlp, exited
}

// newJaeger is startJaeger, started later by start (a collector not up
// yet when the export begins).
func newJaeger(t *testing.T, receiverExtra string) (query, otlp string, exited chan error, start func()) {
	bin := os.Getenv("LOOPKIT_JAEGER")
	if bin == "" {
		t.Skip("LOOPKIT_JAEGER not set: no Jaeger binary to export to")
	}
	ports := freePorts(t, 3)
	cfg := filepath.Join(t.TempDir(), "jaeger.yaml")
	conf := fmt.Sprintf(jaegerConfig, ports[0], ports[1], ports[2])
	conf = strings.Replace(conf, fmt.Sprintf("endpoint: 127.0.0.1:%d\n", ports[2]), fmt.Sprintf("endpoint: 127.0.0.1:%d\n", ports[2])+receiverExtra, 1)
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	query = fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	exited = make(chan error, 1)
	start = func() {
		var logs strings.Builder
		cmd := exec.Command(bin, "--config", "file:"+cfg)
		cmd.Stdout, cmd.Stderr = &logs, &logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { exited <- cmd.Wait() }()
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			<-exited
			if t.Failed() {
				t.Logf("jaeger's log:\n%s", logs.String())
			}
		})
		poll(t, exited, 60*time.Second, "jaeger's query API", func() bool {
			resp, err := http.Get(query + "/api/services")
			if err == nil {
				resp.Body.Close()
			}
			return err == nil && resp.StatusCode == 200
		})
	}
	return query, fmt.Sprintf("http://127.0.0.1:%d", ports[2]), exited, start
}

// freePorts are n loopback ports free a moment ago.
func freePorts(t *testing.T, n int) []int {
	var ports []int
	var lns []net.Listener
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	for _, ln := range lns {
		ln.Close()
	}
	return ports
}
