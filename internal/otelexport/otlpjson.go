package otelexport

import (
	"context"
	"io"
	"sync"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// JSONExporter writes each export request as one line of OTLP/JSON, the
// format the Collector's otlpjsonfile receiver reads.
type JSONExporter struct {
	mu sync.Mutex
	W  io.Writer
}

// ExportSpans writes the spans as one ExportTraceServiceRequest line.
func (e *JSONExporter) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(ToTraces(spans))
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	_, err = e.W.Write(append(b, '\n'))
	return err
}

// Shutdown has nothing to release.
func (e *JSONExporter) Shutdown(context.Context) error { return nil }

// ToTraces converts finished SDK spans into the Collector's data model,
// one resource and scope per distinct pair, in order.
func ToTraces(spans []sdktrace.ReadOnlySpan) ptrace.Traces {
	td := ptrace.NewTraces()
	var scope ptrace.ScopeSpans
	var lastRes, lastScope any
	for _, s := range spans {
		res, sc := s.Resource(), s.InstrumentationScope()
		if lastRes == nil || res != lastRes || sc != lastScope {
			rs := td.ResourceSpans().AppendEmpty()
			if res != nil {
				rs.SetSchemaUrl(res.SchemaURL())
				putAttrs(rs.Resource().Attributes(), res.Attributes())
			}
			scope = rs.ScopeSpans().AppendEmpty()
			scope.Scope().SetName(sc.Name)
			scope.Scope().SetVersion(sc.Version)
			scope.SetSchemaUrl(sc.SchemaURL)
			lastRes, lastScope = res, sc
		}
		sp := scope.Spans().AppendEmpty()
		ctx := s.SpanContext()
		sp.SetTraceID(pcommon.TraceID(ctx.TraceID()))
		sp.SetSpanID(pcommon.SpanID(ctx.SpanID()))
		if p := s.Parent(); p.SpanID().IsValid() {
			sp.SetParentSpanID(pcommon.SpanID(p.SpanID()))
		}
		sp.SetName(s.Name())
		sp.SetKind(ptrace.SpanKind(s.SpanKind())) // same numbering as OTLP
		sp.SetStartTimestamp(pcommon.NewTimestampFromTime(s.StartTime()))
		sp.SetEndTimestamp(pcommon.NewTimestampFromTime(s.EndTime()))
		putAttrs(sp.Attributes(), s.Attributes())
		for _, ev := range s.Events() {
			e := sp.Events().AppendEmpty()
			e.SetName(ev.Name)
			e.SetTimestamp(pcommon.NewTimestampFromTime(ev.Time))
			putAttrs(e.Attributes(), ev.Attributes)
		}
		switch st := s.Status(); st.Code {
		case codes.Error:
			sp.Status().SetCode(ptrace.StatusCodeError)
			sp.Status().SetMessage(st.Description)
		case codes.Ok:
			sp.Status().SetCode(ptrace.StatusCodeOk)
		}
	}
	return td
}

func putAttrs(m pcommon.Map, kvs []attribute.KeyValue) {
	m.EnsureCapacity(len(kvs))
	for _, kv := range kvs {
		k := string(kv.Key)
		switch kv.Value.Type() {
		case attribute.BOOL:
			m.PutBool(k, kv.Value.AsBool())
		case attribute.INT64:
			m.PutInt(k, kv.Value.AsInt64())
		case attribute.FLOAT64:
			m.PutDouble(k, kv.Value.AsFloat64())
		case attribute.STRINGSLICE:
			s := m.PutEmptySlice(k)
			for _, v := range kv.Value.AsStringSlice() {
				s.AppendEmpty().SetStr(v)
			}
		case attribute.INT64SLICE:
			s := m.PutEmptySlice(k)
			for _, v := range kv.Value.AsInt64Slice() {
				s.AppendEmpty().SetInt(v)
			}
		default:
			m.PutStr(k, kv.Value.String())
		}
	}
}
