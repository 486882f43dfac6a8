package otelexport

import (
	"context"
	"io"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/loopkit/loopkit/internal/quote"
)

// JSONExporter writes each export request as one line of OTLP/JSON, the
// format the Collector's otlpjsonfile receiver reads.
type JSONExporter struct {
	W io.Writer
}

// Send writes the spans as one ExportTraceServiceRequest line.
func (e *JSONExporter) Send(_ context.Context, td ptrace.Traces) error {
	if td.SpanCount() == 0 {
		return nil
	}
	b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	if err != nil {
		return err
	}
	// escaped as the records are, so cat shows an agent's controls: the
	// marshaler escapes C0 only
	if _, err = e.W.Write(append(quote.JSON(b), '\n')); err != nil {
		return err
	}
	// a line each request, as it is sent: a --follow's reader (a pipe to
	// a collector) gets each iteration as it comes, not 64 KiB later
	if f, ok := e.W.(interface{ Flush() error }); ok {
		return f.Flush()
	}
	return nil
}

// Close has nothing to release.
func (e *JSONExporter) Close() error { return nil }
