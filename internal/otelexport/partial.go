package otelexport

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/loopkit/loopkit/internal/quote"
)

// Rejected is a collector's partial success: it took the request but
// dropped some of its spans for good (OTLP: the client must not retry).
type Rejected struct {
	Spans   int64
	Message string
}

func (r *Rejected) Error() string {
	msg := ""
	if r.Message != "" {
		msg = ": " + oneLine(r.Message)
	}
	return fmt.Sprintf("the collector took the request but rejected %d spans%s (not retried: OTLP says they would be rejected again)", r.Spans, msg)
}

// RunFault is a failure of one run's own: its records do not read, or the
// collector refused its spans as they are (400, 413). Another run's
// spans may still be taken.
type RunFault struct {
	Err      error
	TooLarge bool // the request was: its spans may go in smaller ones
}

func (f *RunFault) Error() string { return f.Err.Error() }
func (f *RunFault) Unwrap() error { return f.Err }

// add counts another rejection into r.
func (r *Rejected) add(o *Rejected) {
	r.Spans += o.Spans
	if r.Message == "" {
		r.Message = o.Message
	}
}

// partialSuccess reads an ExportTraceServiceResponse: partial_success
// (field 1) holds rejected_spans (1, varint) and error_message (2). A
// message with no span rejected is a warning only; an answer that does
// not parse is a success, as the status said.
func partialSuccess(msg []byte) error {
	ps, ok := protoField(msg, 1)
	if !ok {
		return nil
	}
	r := &Rejected{}
	if v, ok := protoField(ps, 1); ok {
		n, _ := binary.Uvarint(v)
		r.Spans = int64(min(n, 1<<62))
	}
	if v, ok := protoField(ps, 2); ok {
		r.Message = string(v[:min(len(v), 200)])
	}
	if r.Spans <= 0 {
		return nil
	}
	return r
}

// protoField finds the last occurrence of a field in a protobuf message:
// a varint's bytes, or a length-delimited field's contents.
func protoField(b []byte, want uint64) (val []byte, found bool) {
	for len(b) > 0 {
		tag, n := binary.Uvarint(b)
		if n <= 0 {
			return val, found
		}
		b = b[n:]
		var v []byte
		switch tag & 7 {
		case 0: // varint
			_, n = binary.Uvarint(b)
			if n <= 0 {
				return val, found
			}
			v, b = b[:n], b[n:]
		case 1, 5: // fixed64, fixed32
			size := 8
			if tag&7 == 5 {
				size = 4
			}
			if len(b) < size {
				return val, found
			}
			v, b = b[:size], b[size:]
		case 2: // length-delimited
			l, n := binary.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				return val, found
			}
			v, b = b[n:n+int(l)], b[n+int(l):]
		default:
			return val, found
		}
		if tag>>3 == want {
			val, found = v, true
		}
	}
	return val, found
}

// oneLine is a collector's text for a message: one line, at most 200
// bytes, no control left to act on the terminal.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "…"
	}
	return strings.Map(func(r rune) rune {
		if quote.Acts(r) {
			return '?'
		}
		return r
	}, s)
}
