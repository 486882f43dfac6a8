package otelexport

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/loopkit/loopkit/internal/record"
)

// SemconvVersion is the version of the OpenTelemetry semantic conventions
// the GenAI attributes follow.
const SemconvVersion = "1.40.0"

// Run is what one export sends of a run: its identity, run.json when known
// and the records read so far.
type Run struct {
	ID        string
	CreatedAt int64
	Meta      *record.Run // nil for records read from stdin
	// Interrupted: Meta says running or queued, but its driver is gone
	// (store.Interrupted), as the views show it.
	Interrupted bool
	// Events are the newest of the run's events read (AddEvent keeps at
	// most 2*maxEvents: the span carries only the newest maxEvents, so a
	// run with half a million events is never held whole); Dropped counts
	// those let go.
	Events  []record.Event
	Dropped int
}

// AddEvent keeps e as the run's newest event, letting the oldest go once
// twice the span's limit is held (amortised: one copy per maxEvents).
func (r *Run) AddEvent(e record.Event) {
	if len(r.Events) == 2*maxEvents {
		n := copy(r.Events, r.Events[maxEvents:])
		clear(r.Events[n:])
		r.Events = r.Events[:n]
		r.Dropped += maxEvents
	}
	r.Events = append(r.Events, e)
}

// Mapper builds the spans of runs as OTLP data, straight from the
// records, into its session's pending batches.
type Mapper struct {
	// Redactor is applied to everything textual that is sent; content
	// (messages, outputs, tool arguments) is sent only with IncludeContent.
	Redactor       *Content
	IncludeContent bool
	out            *pending
}

// start appends a span; its name and every text it carries go through the
// redactor here, content or not (a run's name can hold a key). A parent
// under the run's root is remote: another request may carry the root.
func (m *Mapper) start(tid pcommon.TraceID, n int, part string, parent pcommon.SpanID, remote bool, name string, start int64, kind ptrace.SpanKind, attrs []kv) ptrace.Span {
	sp := m.out.span()
	sp.SetTraceID(tid)
	sp.SetSpanID(SpanID(tid, n, part))
	flags := uint32(flagSampled | flagHasIsRemote)
	if !parent.IsEmpty() {
		sp.SetParentSpanID(parent)
		if remote {
			flags |= flagParentRemote
		}
	}
	sp.SetFlags(flags)
	sp.SetName(m.redact(name))
	sp.SetKind(kind)
	sp.SetStartTimestamp(ts(start))
	m.addAttrs(sp, attrs...)
	return sp
}

// addAttrs adds attributes to a span, counting those over the limit.
func (m *Mapper) addAttrs(sp ptrace.Span, attrs ...kv) {
	if d := m.put(sp.Attributes(), attrs); d > 0 {
		sp.SetDroppedAttributesCount(sp.DroppedAttributesCount() + d)
	}
}

func setError(sp ptrace.Span, msg string) {
	sp.Status().SetCode(ptrace.StatusCodeError)
	sp.Status().SetMessage(msg)
}

// RunSpan maps the root span of a run: status, totals and settings.
// The run's events become its span events: they are sent with the root,
// when the run has ended, so none is lost to an iteration span that was
// sent before the event was written.
func (m *Mapper) RunSpan(r Run, lastTS int64) {
	tid := TraceID(r.ID, r.CreatedAt)
	attrs := []kv{str("loopkit.run.id", r.ID)}
	end := max(lastTS, r.CreatedAt)
	status := ""
	if meta := r.Meta; meta != nil {
		status = meta.Status
		attrs = append(attrs,
			str("loopkit.run.status", meta.Status),
			num("loopkit.run.iterations", int64(meta.Iteration)),
			num("loopkit.run.passed", int64(meta.Passed)),
			num("loopkit.run.failed", int64(meta.Failed)),
			str("loopkit.validation.command", m.redact(meta.ValidationCommand)),
			num("loopkit.total_duration_ms", meta.TotalDurationMs),
		)
		for _, t := range []struct {
			key string
			v   *int64
		}{
			{"loopkit.total_input_tokens", meta.TotalInputTokens},
			{"loopkit.total_output_tokens", meta.TotalOutputTokens},
			{"loopkit.total_cache_read_tokens", meta.TotalCacheReadTokens},
			{"loopkit.total_cache_creation_tokens", meta.TotalCacheCreationTokens},
		} {
			if t.v != nil { // null: the agent reported none
				attrs = append(attrs, num(t.key, *t.v))
			}
		}
		if r.Interrupted {
			attrs = append(attrs, boolean("loopkit.run.interrupted", true))
		}
		if meta.Name != "" {
			attrs = append(attrs, str("loopkit.run.name", meta.Name))
		}
		if meta.TotalCostUSD != nil {
			attrs = append(attrs, float("loopkit.total_cost_usd", *meta.TotalCostUSD))
		}
		set := meta.Settings.Map()
		keys := make([]string, 0, len(set))
		for k := range set {
			keys = append(keys, k)
		}
		slices.Sort(keys) // the same order on every export
		for _, k := range keys {
			if secretKey(k) {
				continue
			}
			v := m.redact(set[k])
			if items := meta.Settings.List(k); items != nil { // each item whole: a cut key is cut at its end
				redacted := make([]string, len(items))
				for i, it := range items {
					redacted[i] = m.redact(it)
				}
				v = strings.Join(redacted, "\n")
			}
			attrs = append(attrs, str("loopkit.setting."+k, v))
		}
		end = max(end, meta.UpdatedAt)
	}
	span := m.start(tid, 0, "run", pcommon.SpanID{}, false, "loop.run", r.CreatedAt, kindInternal, attrs)
	events, dropped := r.Events, r.Dropped
	if len(events) > maxEvents { // the SDK kept the newest
		dropped += len(events) - maxEvents
		events = events[len(events)-maxEvents:]
	}
	if dropped > 0 {
		span.SetDroppedEventsCount(uint32(min(dropped, math.MaxUint32)))
	}
	span.Events().EnsureCapacity(len(events))
	for _, e := range events {
		m.addEvent(span, e)
	}
	switch {
	case r.Interrupted:
		setError(span, "run interrupted")
	case status == record.RunFailed, status == record.RunStuck:
		setError(span, "run "+status)
	case status == record.RunCompleted:
		span.Status().SetCode(ptrace.StatusCodeOk)
	}
	span.SetEndTimestamp(ts(end))
}

// IterationSpans maps iteration it of run r: the iteration span, the
// agent step with its tool calls, and the validation.
func (m *Mapper) IterationSpans(r Run, it *record.IterationLog) {
	tid := TraceID(r.ID, r.CreatedAt)
	n := it.Iteration
	vStart, vEnd := it.ValidationStartedAt, it.ValidationEndedAt
	if vStart == 0 {
		vEnd = it.CreatedAt
	}
	vStart = startOf(vStart, vEnd, it.DurationMs)
	start, end := vStart, max(vEnd, it.CreatedAt)
	var aStart, aEnd int64
	if a := it.Agent; a != nil {
		aStart, aEnd = a.StartedAt, a.EndedAt
		if aStart == 0 {
			aEnd = vStart
		}
		aStart = startOf(aStart, aEnd, a.DurationMs)
		start = min(start, aStart)
	}
	attrs := []kv{
		str("loopkit.run.id", r.ID),
		num("loopkit.iteration", int64(n)),
		str("loopkit.status", it.Status),
		num("loopkit.exit_code", int64(it.ExitCode)),
		num("loopkit.files_changed.count", int64(len(it.FilesChanged))),
	}
	var failing []string
	for _, f := range it.Failures {
		failing = append(failing, f.Test)
	}
	if len(failing) > 0 {
		attrs = append(attrs, strs("loopkit.failures", failing))
	}
	if it.TasksDone != nil && it.TasksTotal != nil {
		attrs = append(attrs, num("loopkit.tasks_done", int64(*it.TasksDone)), num("loopkit.tasks_total", int64(*it.TasksTotal)))
	}
	span := m.start(tid, n, "iteration", SpanID(tid, 0, "run"), true, "loop.iteration", start, kindInternal, attrs)
	if it.Status != record.StatusPass {
		desc := m.redact(it.Status) + ": exit " + strconv.Itoa(it.ExitCode)
		if len(failing) > 0 {
			desc += fmt.Sprintf(", %d failing", len(failing))
		}
		setError(span, m.redact(desc))
	}
	span.SetEndTimestamp(ts(end))
	iter := span.SpanID()
	if a := it.Agent; a != nil {
		m.agentSpan(tid, n, "agent", iter, false, a, usage{it.LLMInputTokens, it.LLMOutputTokens, it.LLMCacheReadTokens, it.LLMCacheCreationTokens, it.CostUSD}, it.ToolCalls, aStart, aEnd)
	}
	m.validationSpan(tid, n, iter, it, vStart, vEnd)
}

// startOf is the start of a span that ends at end and lasted dur ms: the
// recorded start, unless there is none (older records) or it is after the
// end. Starts and ends are wall times, durations monotonic: a clock set
// back during the step leaves the end, and the times recorded after it,
// on the new clock, so the span is placed there.
func startOf(start, end, dur int64) int64 {
	if start == 0 || end < start {
		return end - max(dur, 0)
	}
	return start
}

// AttemptSpan maps an agent call that is not an iteration (an
// interrupted or rate-limited step, a reviewer, a stuck report).
func (m *Mapper) AttemptSpan(r Run, at *record.Attempt) {
	if at.Agent == nil {
		return
	}
	tid := TraceID(r.ID, r.CreatedAt)
	a := at.Agent
	start, end := a.StartedAt, a.EndedAt
	if start == 0 {
		end = at.CreatedAt
	}
	start = startOf(start, end, a.DurationMs)
	part := "attempt-" + strconv.Itoa(at.Attempt)
	m.agentSpan(tid, 0, part, SpanID(tid, 0, "run"), true, a, usage{at.LLMInputTokens, at.LLMOutputTokens, at.LLMCacheReadTokens, at.LLMCacheCreationTokens, at.CostUSD}, at.ToolCalls, start, end,
		str("loopkit.attempt.kind", at.Kind), num("loopkit.attempt", int64(at.Attempt)))
}

// addEvent records a store event (status change, rate limit, watchdog
// signal) as a span event. Messages and evidence are content.
func (m *Mapper) addEvent(span ptrace.Span, e record.Event) {
	attrs := []kv{}
	if e.Status != "" {
		attrs = append(attrs, str("loopkit.status", e.Status))
	}
	if e.ExitCode != nil {
		attrs = append(attrs, num("loopkit.exit_code", int64(*e.ExitCode)))
	}
	if e.Iteration != nil {
		attrs = append(attrs, num("loopkit.iteration", int64(*e.Iteration)))
	}
	if e.Signal != "" {
		attrs = append(attrs, str("loopkit.signal", e.Signal))
	}
	if e.RateLimitResetsAt != nil {
		attrs = append(attrs, num("loopkit.rate_limit_resets_at", *e.RateLimitResetsAt))
	}
	if e.WaitMs != nil {
		attrs = append(attrs, num("loopkit.wait_ms", *e.WaitMs))
	}
	if m.IncludeContent {
		if e.Message != "" {
			attrs = append(attrs, str("loopkit.message", m.Redactor.Redact(e.Message)))
		}
		if e.Evidence != "" {
			attrs = append(attrs, str("loopkit.evidence", m.Redactor.Redact(e.Evidence)))
		}
	}
	ev := span.Events().AppendEmpty()
	ev.SetName(m.redact(e.Type))
	ev.SetTimestamp(ts(e.TS))
	ev.SetDroppedAttributesCount(m.put(ev.Attributes(), attrs))
}

// redact applies the secret patterns to text that is always sent (commands,
// settings) and to content.
func (m *Mapper) redact(s string) string {
	if m.Redactor == nil {
		return defaultRedactor().Redact(s)
	}
	return m.Redactor.Redact(s)
}

// secretKey says a setting's name looks like it holds a secret.
func secretKey(k string) bool {
	k = strings.ToLower(k)
	for _, w := range []string{"token", "secret", "password", "passwd", "key", "auth", "credential", "header"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// contentChars is how much of each output stream --include-content sends.
const contentChars = 4096

// tailString is s's last n bytes, from a whole character on: a cut
// through one sent U+FFFD (OTLP strings are UTF-8) before CJK output.
func tailString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[len(s)-n:], "")
}
