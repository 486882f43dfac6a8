//go:build grpc

package loopexport

import (
	"context"
	"crypto/tls"
	"net/url"
	"os"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/otelexport"
)

// grpcSender sends OTLP over gRPC (the build with the grpc tag only).
type grpcSender struct {
	conn     *grpc.ClientConn
	client   ptraceotlp.GRPCClient
	md       metadata.MD
	timeout  time.Duration
	retryFor time.Duration
}

func newGRPCSender(c grpcConfig) (otelexport.Sender, error) {
	target, secure, err := grpcTarget(c.endpoint, c.insecure)
	if err != nil {
		return nil, cli.Usagef("%v", err)
	}
	creds := insecure.NewCredentials()
	if secure {
		tc := c.tls
		if tc == nil {
			tc = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		creds = credentials.NewTLS(tc)
	}
	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(creds))
	if err != nil {
		return nil, cli.Failf("grpc %s: %w", target, err)
	}
	return &grpcSender{conn: conn, client: ptraceotlp.NewGRPCClient(conn), md: metadata.New(c.headers),
		timeout: c.opts.Timeout.D(), retryFor: c.opts.RetryFor.D()}, nil
}

// grpcTarget is host:port from --endpoint or the variables (a URL: its
// scheme says plain or TLS), else localhost:4317.
func grpcTarget(flag string, insecure bool) (string, bool, error) {
	for _, v := range []string{flag, os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT")} {
		if v == "" {
			continue
		}
		u, err := url.Parse(v)
		if err != nil || u.Host == "" {
			return "", false, err
		}
		return u.Host, !insecure && u.Scheme != "http", nil
	}
	return "localhost:4317", !insecure, nil
}

// Send exports td, retrying the codes the OTLP specification calls
// retryable.
func (g *grpcSender) Send(ctx context.Context, td ptrace.Traces) error {
	req := ptraceotlp.NewExportRequestFromTraces(td)
	return otelexport.Retry(ctx, g.retryFor, func() (time.Duration, error) {
		rctx, cancel := context.WithTimeout(metadata.NewOutgoingContext(ctx, g.md), g.timeout)
		defer cancel()
		resp, err := g.client.Export(rctx, req)
		switch status.Code(err) {
		case codes.OK:
			if ps := resp.PartialSuccess(); ps.RejectedSpans() > 0 { // final, as over HTTP
				return -1, &otelexport.Rejected{Spans: ps.RejectedSpans(), Message: ps.ErrorMessage()}
			}
			return 0, nil
		case codes.Unavailable, codes.ResourceExhausted, codes.Aborted, codes.OutOfRange, codes.DataLoss:
			return 0, err
		case codes.DeadlineExceeded:
			if ctx.Err() == nil {
				return 0, err
			}
		}
		return -1, err
	})
}

func (g *grpcSender) Close() error { return g.conn.Close() }
