package loopexport

import (
	"context"
	"errors"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/otelexport"
)

// newExporter builds the OTLP exporter the options and the standard
// variables describe, and names its destination for the checkpoint ("" for
// --stdout, which keeps none).
func newExporter(ctx context.Context, env *cli.Env, opts *Options) (string, sdktrace.SpanExporter, error) {
	if opts.Stdout {
		return "", &otelexport.JSONExporter{W: env.Stdout}, nil
	}
	headers := map[string]string{}
	for _, h := range opts.Header {
		k, v, ok := strings.Cut(h, "=")
		if !ok || k == "" {
			return "", nil, env.UsageError("--header %q: want NAME=VALUE", h)
		}
		headers[k] = v
	}
	endpoint := opts.Endpoint
	if endpoint != "" {
		if u, err := url.Parse(endpoint); err != nil || u.Scheme == "" || u.Host == "" {
			return "", nil, env.UsageError("--endpoint %q: want a URL such as http://localhost:4318", endpoint)
		}
	}
	if endpoint != "" && opts.Protocol != "grpc" {
		endpoint = tracesURL(endpoint)
	}
	dest := opts.Protocol + " " + destination(endpoint, opts.Protocol)
	var exp sdktrace.SpanExporter
	var err error
	if opts.Protocol == "grpc" {
		o := []otlptracegrpc.Option{
			otlptracegrpc.WithTimeout(opts.Timeout.D()),
			otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: opts.RetryFor > 0, InitialInterval: retryFirst, MaxInterval: retryMax, MaxElapsedTime: opts.RetryFor.D()}),
		}
		if endpoint != "" {
			o = append(o, otlptracegrpc.WithEndpointURL(endpoint))
		}
		if opts.Insecure {
			o = append(o, otlptracegrpc.WithInsecure())
		}
		if len(headers) > 0 {
			o = append(o, otlptracegrpc.WithHeaders(headers))
		}
		exp, err = otlptracegrpc.New(ctx, o...)
	} else {
		o := []otlptracehttp.Option{
			otlptracehttp.WithTimeout(opts.Timeout.D()),
			otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: opts.RetryFor > 0, InitialInterval: retryFirst, MaxInterval: retryMax, MaxElapsedTime: opts.RetryFor.D()}),
		}
		if endpoint != "" {
			o = append(o, otlptracehttp.WithEndpointURL(endpoint))
		}
		if opts.Insecure {
			o = append(o, otlptracehttp.WithInsecure())
		}
		if len(headers) > 0 {
			o = append(o, otlptracehttp.WithHeaders(headers))
		}
		exp, err = otlptracehttp.New(ctx, o...)
	}
	if err != nil {
		return "", nil, cli.Failf("exporter: %v", err)
	}
	return dest, &redialing{SpanExporter: exp, retryFor: opts.RetryFor.D()}, nil
}

// tracesURL follows the OTLP exporters' convention for a base URL
// (OTEL_EXPORTER_OTLP_ENDPOINT): a URL without a path gets /v1/traces; a
// URL with one is kept as given (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT).
func tracesURL(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Path != "" && u.Path != "/") {
		return endpoint
	}
	u.Path = "/v1/traces"
	return u.String()
}

// redialing retries a batch the collector could not be reached for (a
// refused connection, a host that does not answer yet): the HTTP exporter
// retries refused requests (429, 5xx) but gives up on a connection error at
// once. It backs off as the exporter does, for retryFor in all.
type redialing struct {
	sdktrace.SpanExporter
	retryFor time.Duration
}

func (r *redialing) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	deadline := time.Now().Add(r.retryFor)
	wait := retryFirst
	for {
		err := r.SpanExporter.ExportSpans(ctx, spans)
		if err == nil || !unreachable(err) || time.Now().Add(wait).After(deadline) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait = min(2*wait, retryMax)
	}
}

// unreachable: the error is the network's (no connection was made or it
// broke), not the collector's answer.
func unreachable(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET)
}

// destination is the endpoint the exporter will use, as the OTLP
// exporters read it from the flag or the environment.
func destination(flag, protocol string) string {
	for _, v := range []string{flag, os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT")} {
		if v != "" {
			return v
		}
	}
	if protocol == "grpc" {
		return "localhost:4317"
	}
	return "localhost:4318"
}

// Retries back off from retryFirst to retryMax between attempts.
const (
	retryFirst = 200 * time.Millisecond
	retryMax   = 5 * time.Second
)
