//go:build grpc

package loopexport_test

import (
	"context"
	"net"
	"sync"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// grpcReceiver is an OTLP/gRPC endpoint refusing the first fail calls
// with Unavailable.
type grpcReceiver struct {
	ptraceotlp.UnimplementedGRPCServer
	mu    sync.Mutex
	calls int
	fail  int
	spans int
	team  []string
}

func (g *grpcReceiver) Export(ctx context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls++
	if g.calls <= g.fail {
		return ptraceotlp.NewExportResponse(), status.Error(codes.Unavailable, "not yet")
	}
	md, _ := metadata.FromIncomingContext(ctx)
	g.team = append(g.team, md.Get("x-team")...)
	g.spans += req.Traces().SpanCount()
	return ptraceotlp.NewExportResponse(), nil
}

// TestGRPC: the build with the grpc tag sends over gRPC, with headers as
// metadata, and retries Unavailable.
func TestGRPC(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	rcv := &grpcReceiver{fail: 1}
	ptraceotlp.RegisterGRPCServer(srv, rcv)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	root, _ := fixture(t)
	if _, code := run(t, root, "", "loop-export", "fix", "--protocol", "grpc", "--endpoint", "http://"+ln.Addr().String(), "--header", "x-team=red"); code != 0 {
		t.Fatalf("loop-export --protocol grpc: exit %d", code)
	}
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	if rcv.calls != 2 || rcv.spans != 11 || len(rcv.team) != 1 || rcv.team[0] != "red" {
		t.Errorf("%d calls, %d spans, x-team %v; want 2 calls (one refused), 11 spans, red", rcv.calls, rcv.spans, rcv.team)
	}
}
