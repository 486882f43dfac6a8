// Package otelexport turns a run's records into OpenTelemetry spans: one
// trace per run, a span per iteration with the agent step, the validation
// and the tool calls under it. Ids are derived from the run, so exporting
// again, from another machine or from records on stdin, gives the same ids.
package otelexport

import (
	"crypto/sha256"
	"strconv"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// TraceID is the trace of a run: its id and creation time both travel
// with the run's directory and its records.
func TraceID(runID string, createdAt int64) pcommon.TraceID {
	var id pcommon.TraceID
	sum := sha256.Sum256([]byte("loopkit/trace\x00" + runID + "\x00" + strconv.FormatInt(createdAt, 10)))
	copy(id[:], sum[:])
	return id
}

// SpanID is the span of one part (run, iteration, agent, validation,
// tool 3, ...) of iteration n of a run (n 0: the run itself).
func SpanID(tid pcommon.TraceID, n int, part string) pcommon.SpanID {
	var id pcommon.SpanID
	sum := sha256.Sum256([]byte("loopkit/span\x00" + string(tid[:]) + "\x00" + strconv.Itoa(n) + "\x00" + part))
	copy(id[:], sum[:])
	if id.IsEmpty() { // all zero: astronomically unlikely, but invalid
		id[7] = 1
	}
	return id
}
