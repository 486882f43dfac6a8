package loopexport_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// TestRetryAfter: a 429 with Retry-After is tried again no sooner than
// the collector asked (the backoff alone would wait 100-300 ms).
func TestRetryAfter(t *testing.T) {
	root, _ := fixture(t)
	rcv := newReceiver(t, 1)
	rcv.failCode, rcv.retryAfter = http.StatusTooManyRequests, "1"
	if _, code := run(t, root, "", "loop-export", "fix", "--endpoint", rcv.url()); code != 0 {
		t.Fatalf("loop-export: exit %d", code)
	}
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	if len(rcv.times) != 2 {
		t.Fatalf("%d requests, want the refused one and its retry", len(rcv.times))
	}
	if gap := rcv.times[1].Sub(rcv.times[0]); gap < 950*time.Millisecond {
		t.Errorf("retried %v after a 429 with Retry-After: 1", gap)
	}
}

// TestRefusedForGood: a 400 is the collector's final word: no retry, exit
// 1 with the answer in the message.
func TestRefusedForGood(t *testing.T) {
	root, _ := fixture(t)
	rcv := newReceiver(t, 100)
	rcv.failCode = http.StatusBadRequest
	_, errs, code := runEnv(t, root, "", nil, "loop-export", "fix", "--endpoint", rcv.url())
	if code != 1 || rcv.requests != 1 {
		t.Errorf("a 400: exit %d after %d requests, want exit 1 after 1", code, rcv.requests)
	}
	if !strings.Contains(errs, "400 Bad Request: refused by the test receiver") {
		t.Errorf("stderr %q does not give the answer", errs)
	}
}

// TestEndpointVariables: the standard variables choose the URL (a base
// URL gets /v1/traces joined to its path; the traces variable is used as
// given), the headers (percent-decoded) and gzip.
func TestEndpointVariables(t *testing.T) {
	root, _ := fixture(t)
	for _, tc := range []struct {
		env  []string
		want string
	}{
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT={}/base"}, "/base/v1/traces"},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT={}/base", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT={}/mine"}, "/mine"},
	} {
		rcv := newReceiver(t, 0)
		env := []string{"OTEL_EXPORTER_OTLP_HEADERS=x-api-key=a%20b, x-team = red", "OTEL_EXPORTER_OTLP_COMPRESSION=gzip"}
		for _, e := range tc.env {
			env = append(env, strings.ReplaceAll(e, "{}", rcv.srv.URL))
		}
		if _, _, code := runEnv(t, root, "", env, "loop-export", "fix"); code != 0 {
			t.Fatalf("%v: exit %d", tc.env, code)
		}
		if len(rcv.paths) == 0 || rcv.paths[0] != tc.want {
			t.Errorf("%v: posted to %v, want %s", tc.env, rcv.paths, tc.want)
			continue
		}
		h := rcv.headers[0]
		if h.Get("X-Api-Key") != "a b" || h.Get("X-Team") != "red" || h.Get("Content-Encoding") != "gzip" {
			t.Errorf("headers %v", h)
		}
		if len(rcv.take()) != 11 {
			t.Errorf("%v: not the run's 11 spans", tc.env)
		}
		rmCheckpoints(t, root)
	}
}

// TestResourceVariables: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES
// set the resource, over loopkit's own service.name.
func TestResourceVariables(t *testing.T) {
	root, _ := fixture(t)
	out, _, code := runEnv(t, root, "", []string{"OTEL_SERVICE_NAME=ci-loops", "OTEL_RESOURCE_ATTRIBUTES=service.name=x,team=a%2Cb,bad"},
		"loop-export", "fix", "--stdout")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces([]byte(strings.SplitN(out, "\n", 2)[0]))
	if err != nil {
		t.Fatal(err)
	}
	rs := td.ResourceSpans().At(0)
	got := rs.Resource().Attributes().AsRaw()
	if got["service.name"] != "ci-loops" || got["team"] != "a,b" || got["service.version"] == nil || len(got) != 3 {
		t.Errorf("resource %v", got)
	}
	if rs.SchemaUrl() != "https://opentelemetry.io/schemas/1.40.0" {
		t.Errorf("schema %q", rs.SchemaUrl())
	}
}

// rmCheckpoints forgets what every destination was sent.
func rmCheckpoints(t *testing.T, root string) {
	if err := os.RemoveAll(filepath.Join(root, "export")); err != nil {
		t.Fatal(err)
	}
}

// TestRetryAfterPastDeadline: a 429 asking for more time than --retry-for
// leaves gives up at once, and says why: it said "gave up after retrying
// for 1m" though nothing was retried.
func TestRetryAfterPastDeadline(t *testing.T) {
	root, _ := fixture(t)
	rcv := newReceiver(t, 1)
	rcv.failCode, rcv.retryAfter = http.StatusTooManyRequests, "120"
	_, errs, code := runEnv(t, root, "", nil, "loop-export", "fix", "--endpoint", rcv.url())
	if code != 1 || rcv.requests != 1 || strings.Contains(errs, "retrying for") || !strings.Contains(errs, "(asked to wait 2m0s: past --retry-for 1m0s, not retried)") {
		t.Errorf("Retry-After 120 with --retry-for 1m: exit %d after %d requests, stderr %q", code, rcv.requests, errs)
	}
}
