// Package otelexport turns a run's records into OpenTelemetry spans: one
// trace per run, a span per iteration with the agent step, the validation
// and the tool calls under it. Ids are derived from the run, so exporting
// again, from another machine or from records on stdin, gives the same ids.
package otelexport

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"strconv"

	"go.opentelemetry.io/otel/trace"
)

// TraceID is the trace of a run: its id and creation time both travel
// with the run's directory and its records.
func TraceID(runID string, createdAt int64) trace.TraceID {
	var id trace.TraceID
	sum := sha256.Sum256([]byte("loopkit/trace\x00" + runID + "\x00" + strconv.FormatInt(createdAt, 10)))
	copy(id[:], sum[:])
	return id
}

// SpanID is the span of one part (run, iteration, agent, validation,
// tool 3, ...) of iteration n of a run (n 0: the run itself).
func SpanID(tid trace.TraceID, n int, part string) trace.SpanID {
	var id trace.SpanID
	sum := sha256.Sum256([]byte("loopkit/span\x00" + string(tid[:]) + "\x00" + strconv.Itoa(n) + "\x00" + part))
	copy(id[:], sum[:])
	if !id.IsValid() { // all zero: astronomically unlikely, but invalid
		id[7] = 1
	}
	return id
}

type idsKey struct{}

type fixedIDs struct {
	trace trace.TraceID
	span  trace.SpanID
}

// withIDs makes the next span started with ctx take these ids.
func withIDs(ctx context.Context, tid trace.TraceID, sid trace.SpanID) context.Context {
	return context.WithValue(ctx, idsKey{}, fixedIDs{tid, sid})
}

// idGenerator hands the SDK the ids placed in the context by withIDs; it
// falls back to random ids only for spans started without them.
type idGenerator struct{}

func (idGenerator) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	if ids, ok := ctx.Value(idsKey{}).(fixedIDs); ok {
		return ids.trace, ids.span
	}
	var t trace.TraceID
	var s trace.SpanID
	_, _ = rand.Read(t[:])
	_, _ = rand.Read(s[:])
	return t, s
}

func (idGenerator) NewSpanID(ctx context.Context, _ trace.TraceID) trace.SpanID {
	if ids, ok := ctx.Value(idsKey{}).(fixedIDs); ok {
		return ids.span
	}
	var s trace.SpanID
	_, _ = rand.Read(s[:])
	return s
}
