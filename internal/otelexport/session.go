package otelexport

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
)

// batchSpans is how many spans one export request carries at most.
const batchSpans = 512

// Session maps runs to spans and sends them. Spans are collected, not
// batched in the background, so that Flush returns the exporter's own
// error and a checkpoint is written only after a delivery.
type Session struct {
	Mapper   *Mapper
	provider *sdktrace.TracerProvider
	spans    *collector
	exporter sdktrace.SpanExporter
}

// NewSession builds a session sending to exp, with the service resource
// (OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over "loopkit").
func NewSession(exp sdktrace.SpanExporter, redactor *Content, includeContent bool, version string) (*Session, error) {
	res, err := resource.Merge(
		resource.NewWithAttributes(semconv.SchemaURL, semconv.ServiceName("loopkit"), semconv.ServiceVersion(version)),
		resource.Environment())
	if err != nil {
		return nil, err
	}
	c := &collector{}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithIDGenerator(idGenerator{}),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithResource(res),
		sdktrace.WithSpanProcessor(c),
		sdktrace.WithRawSpanLimits(sdktrace.SpanLimits{
			AttributeValueLengthLimit: -1, AttributeCountLimit: 256,
			EventCountLimit: 4096, LinkCountLimit: 0,
			AttributePerEventCountLimit: 32, AttributePerLinkCountLimit: 0,
		}),
	)
	tracer := tp.Tracer("github.com/loopkit/loopkit/loop-export")
	return &Session{Mapper: &Mapper{Tracer: tracer, Redactor: redactor, IncludeContent: includeContent}, provider: tp, spans: c, exporter: exp}, nil
}

// Pending is how many spans wait for the next Flush.
func (s *Session) Pending() int { return s.spans.len() }

// Flush sends the spans made since the last Flush. On an error the spans
// are kept, so the next Flush sends them again (ids make that idempotent).
func (s *Session) Flush(ctx context.Context) error {
	spans := s.spans.peek()
	for len(spans) > 0 {
		n := min(len(spans), batchSpans)
		if err := s.exporter.ExportSpans(ctx, spans[:n]); err != nil {
			return err
		}
		s.spans.drop(n)
		spans = spans[n:]
	}
	return nil
}

// Shutdown flushes and releases the exporter.
func (s *Session) Shutdown(ctx context.Context) error {
	err := s.Flush(ctx)
	_ = s.provider.Shutdown(ctx)
	if e := s.exporter.Shutdown(ctx); err == nil {
		err = e
	}
	return err
}

// collector is a span processor that keeps ended spans until Flush.
type collector struct {
	mu    sync.Mutex
	spans []sdktrace.ReadOnlySpan
}

func (c *collector) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (c *collector) OnEnd(s sdktrace.ReadOnlySpan) {
	c.mu.Lock()
	c.spans = append(c.spans, s)
	c.mu.Unlock()
}
func (c *collector) Shutdown(context.Context) error   { return nil }
func (c *collector) ForceFlush(context.Context) error { return nil }

func (c *collector) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.spans)
}

func (c *collector) peek() []sdktrace.ReadOnlySpan {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sdktrace.ReadOnlySpan(nil), c.spans...)
}

func (c *collector) drop(n int) {
	c.mu.Lock()
	c.spans = append(c.spans[:0:0], c.spans[n:]...)
	c.mu.Unlock()
}
