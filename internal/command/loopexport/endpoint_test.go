package loopexport_test

import (
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestEndpointConvention: --endpoint follows the OTLP exporters' rule: a
// base URL gets /v1/traces, a URL with a path is kept.
func TestEndpointConvention(t *testing.T) {
	for _, tc := range []struct{ suffix, want string }{
		{"", "/v1/traces"},
		{"/", "/v1/traces"},
		{"/custom/traces", "/custom/traces"},
	} {
		root, _ := fixture(t)
		rcv := newReceiver(t, 0)
		if _, code := run(t, root, "", "loop-export", "fix", "--endpoint", rcv.srv.URL+tc.suffix); code != 0 {
			t.Fatalf("%q: loop-export: exit %d", tc.suffix, code)
		}
		rcv.mu.Lock()
		paths := slices.Clone(rcv.paths)
		rcv.mu.Unlock()
		if len(paths) == 0 || slices.IndexFunc(paths, func(p string) bool { return p != tc.want }) >= 0 {
			t.Errorf("--endpoint base%s: posted to %v, want %s", tc.suffix, paths, tc.want)
		}
	}
}

// TestRefusedConnectionRetried: a collector not listening yet is retried
// for --retry-for (the HTTP exporter alone gave up at once), and one that
// starts listening meanwhile gets the batch.
func TestRefusedConnectionRetried(t *testing.T) {
	root, _ := fixture(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // refused from now on
	start := time.Now()
	if _, code := run(t, root, "", "loop-export", "fix", "--endpoint", "http://"+addr, "--retry-for", "1500ms"); code != 1 {
		t.Fatalf("loop-export to a refused port: exit %d, want 1", code)
	}
	if took := time.Since(start); took < 1200*time.Millisecond {
		t.Fatalf("gave up after %v, want about --retry-for 1.5s of retries", took)
	}

	// the collector comes up while loop-export retries
	cmd := exec.Command(os.Args[0], "fix", "--endpoint", "http://"+addr, "--retry-for", "60s")
	cmd.Env = append(os.Environ(), "LOOPKIT_TEST_EXEC=loop-export", "LOOP_STORE="+root)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() { _ = cmd.Process.Kill() }()
	rcv := newReceiverAt(t, addr)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("loop-export: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("loop-export never delivered")
	}
	if len(rcv.take()) == 0 {
		t.Fatal("no spans reached the collector that came up late")
	}
}

// TestEndpointScheme: OTLP/HTTP goes to an http or https URL; any other
// scheme, from the flag or the standard variables, is a usage error at
// once (exit 2), not a minute of retries ending in Go's "unsupported
// protocol scheme".
func TestEndpointScheme(t *testing.T) {
	root, _ := fixture(t)
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"--endpoint", "ftp://collector:4318"}, `loop-export: --endpoint "ftp://collector:4318": want a URL such as http://localhost:4318`},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT=ftp://collector:4318"}, nil, `loop-export: OTEL_EXPORTER_OTLP_ENDPOINT="ftp://collector:4318": want a URL such as http://localhost:4318`},
	} {
		_, errs, code := runEnv(t, root, "", tc.env, "loop-export", append([]string{"fix", "--retry-for", "1s"}, tc.args...)...)
		if code != 2 || !strings.HasPrefix(errs, tc.want+"\n") {
			t.Errorf("%v %v: exit %d, stderr %q; want exit 2, %q", tc.env, tc.args, code, errs, tc.want)
		}
	}
}

// TestProtocolVariableJSON: http/json, which loop-export does not send, is
// one line naming the variable (exit 2), and --protocol overrides it.
func TestProtocolVariableJSON(t *testing.T) {
	root, _ := fixture(t)
	env := []string{"OTEL_EXPORTER_OTLP_PROTOCOL=http/json"}
	_, errs, code := runEnv(t, root, "", env, "loop-export", "fix", "--endpoint", "http://127.0.0.1:1", "--retry-for", "0s")
	want := `loop-export: OTEL_EXPORTER_OTLP_PROTOCOL="http/json": loop-export sends http/protobuf or grpc (--protocol overrides it)`
	if code != 2 || !strings.HasPrefix(errs, want+"\n") {
		t.Errorf("exit %d, stderr %q; want exit 2, %q", code, errs, want)
	}
	rcv := newReceiver(t, 0)
	if _, errs, code := runEnv(t, root, "", env, "loop-export", "fix", "--protocol", "http/protobuf", "--endpoint", rcv.srv.URL); code != 0 {
		t.Errorf("--protocol http/protobuf over the variable: exit %d, stderr %q", code, errs)
	}
}

// TestSilentCollector: a collector that takes the connection and never
// answers ends in one line saying so, with the time given and the retries
// (Go's "context deadline exceeded" said neither).
func TestSilentCollector(t *testing.T) {
	root, _ := fixture(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		var held []net.Conn // open, never answered
		for {
			c, err := ln.Accept()
			if err != nil {
				for _, c := range held {
					c.Close()
				}
				return
			}
			held = append(held, c)
		}
	}()
	_, errs, code := runEnv(t, root, "", nil, "loop-export", "fix", "--endpoint", "http://"+ln.Addr().String(), "--timeout", "100ms", "--retry-for", "300ms")
	want := "http://" + ln.Addr().String() + "/v1/traces: no answer within 100ms (--timeout) (gave up after retrying for 300ms)\n"
	if code != 1 || strings.Count(errs, "\n") != 1 || !strings.HasSuffix(errs, want) {
		t.Errorf("exit %d, stderr %q; want exit 1, one line ending %q", code, errs, want)
	}
}

// TestPlainCollectorOverTLS: the default endpoint is https, and a local
// collector answers plain HTTP: one line says so and how to reach it (Go's
// "first record does not look like a TLS handshake" said neither).
func TestPlainCollectorOverTLS(t *testing.T) {
	root, _ := fixture(t)
	rcv := newReceiver(t, 0)
	url := strings.Replace(rcv.srv.URL, "http://", "https://", 1)
	_, errs, code := runEnv(t, root, "", nil, "loop-export", "fix", "--endpoint", url, "--retry-for", "0s")
	if code != 1 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "the collector answered in plain HTTP, not TLS: give an http:// endpoint") {
		t.Errorf("exit %d, stderr %q; want exit 1, one line saying to use http://", code, errs)
	}
}
