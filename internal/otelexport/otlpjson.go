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
	_, err = e.W.Write(append(quote.JSON(b), '\n'))
	return err
}

// Close has nothing to release.
func (e *JSONExporter) Close() error { return nil }
