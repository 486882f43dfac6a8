package otelexport

import (
	"context"
	"errors"
	"os"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// batchSpans is how many spans one export request carries at most.
const batchSpans = 512

// Sender delivers one export request (OTLP/HTTP, gRPC, OTLP/JSON lines).
type Sender interface {
	Send(ctx context.Context, td ptrace.Traces) error
	Close() error
}

// Session maps runs to spans and sends them. Spans wait in batches until
// Flush, so that Flush returns the sender's own error and a checkpoint is
// written only after a delivery.
type Session struct {
	Mapper *Mapper
	sender Sender
	out    *pending
	// rejected counts the spans the destination took but rejected
	rejected *Rejected
	tails    map[string]runTail // how far each run's logs were read
}

// NewSession builds a session sending to sender, with the service resource
// (OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over "loopkit").
func NewSession(sender Sender, redactor *Content, includeContent bool, version string) (*Session, error) {
	m := &Mapper{Redactor: redactor, IncludeContent: includeContent}
	tmpl := ptrace.NewTraces()
	rs := tmpl.ResourceSpans().AppendEmpty()
	rs.SetSchemaUrl(schemaURL)
	m.put(rs.Resource().Attributes(), resourceAttrs(version, os.Getenv))
	rs.ScopeSpans().AppendEmpty().Scope().SetName(scopeName)
	m.out = &pending{tmpl: tmpl}
	return &Session{Mapper: m, sender: sender, out: m.out}, nil
}

// Pending is how many spans wait for the next Flush.
func (s *Session) Pending() int { return s.out.n }

// Flush sends the spans made since the last Flush, a request per batch.
// On an error the batches not sent are kept, so the next Flush sends them
// again (ids make that idempotent). A batch the destination took in part
// counts as sent: its rejected spans are counted for Rejected.
func (s *Session) Flush(ctx context.Context) error {
	_, err := s.flush(ctx)
	return err
}

// flush is Flush, also returning the marks that the batches delivered
// reach (nil: none delivered, or none marked).
func (s *Session) flush(ctx context.Context) (*RunMarks, error) {
	var reached *RunMarks
	for len(s.out.batches) > 0 {
		b := s.out.batches[0]
		err := s.sender.Send(ctx, b.td)
		var rej *Rejected
		var fault *RunFault
		if errors.As(err, &rej) {
			if s.rejected == nil {
				s.rejected = &Rejected{}
			}
			s.rejected.add(rej)
			err = nil
		}
		if errors.As(err, &fault) && fault.TooLarge && b.td.SpanCount() > 1 {
			s.out.halve()
			continue
		}
		if err != nil {
			return reached, err
		}
		if b.upTo != nil {
			reached = b.upTo
		}
		s.out.n -= b.td.SpanCount()
		s.out.batches[0] = batch{}
		s.out.batches = s.out.batches[1:]
	}
	return reached, nil
}

// Rejected returns, and clears, the count of spans the destination
// rejected since the last call (nil: none).
func (s *Session) Rejected() *Rejected {
	r := s.rejected
	s.rejected = nil
	return r
}

// Close releases the sender. It does not flush: after a failed Flush,
// sending again would retry for another --retry-for.
func (s *Session) Close() error { return s.sender.Close() }
