//go:build !grpc

package loopexport_test

import (
	"strings"
	"testing"
)

// TestGRPCNeedsItsBuild: the default build has no gRPC; --protocol grpc
// is a usage error of one line that names the build that has it.
func TestGRPCNeedsItsBuild(t *testing.T) {
	root, _ := fixture(t)
	_, errs, code := runEnv(t, root, "", nil, "loop-export", "fix", "--protocol", "grpc", "--endpoint", "http://127.0.0.1:1")
	if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "-tags grpc") {
		t.Errorf("--protocol grpc: exit %d, stderr %q; want exit 2 and one line naming the grpc build", code, errs)
	}
}

// TestProtocolVariable: OTEL_EXPORTER_OTLP_PROTOCOL (its _TRACES_ form
// first) chooses the protocol when --protocol is not given, as the SDK's
// exporters read it: grpc there asks for the gRPC build here (it was
// ignored, and HTTP/1.1 went to the gRPC port); the flag wins.
func TestProtocolVariable(t *testing.T) {
	root, _ := fixture(t)
	for _, name := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"} {
		_, errs, code := runEnv(t, root, "", []string{name + "=grpc"}, "loop-export", "fix", "--endpoint", "http://127.0.0.1:1", "--retry-for", "0s")
		if code != 2 || !strings.Contains(errs, "-tags grpc") {
			t.Errorf("%s=grpc: exit %d, stderr %q; want exit 2 naming the grpc build", name, code, errs)
		}
	}
	rcv := newReceiver(t, 0)
	env := []string{"OTEL_EXPORTER_OTLP_PROTOCOL=grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf"}
	if _, errs, code := runEnv(t, root, "", env, "loop-export", "fix", "--endpoint", rcv.srv.URL); code != 0 || len(rcv.take()) == 0 {
		t.Errorf("the _TRACES_ variable's http/protobuf: exit %d, stderr %q", code, errs)
	}
}
