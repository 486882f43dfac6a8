package otelexport

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

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
	Events    []record.Event
}

// Mapper starts the spans of runs on a tracer whose provider uses the
// package's id generator (see NewProvider).
type Mapper struct {
	Tracer trace.Tracer
	// Redactor is applied to everything textual that is sent; content
	// (messages, outputs, tool arguments) is sent only with IncludeContent.
	Redactor       *Content
	IncludeContent bool
}

func ms(t int64) time.Time { return time.UnixMilli(t) }

// runParent is the context of a span under the run's root span, which may
// be exported by another call or process.
func runParent(ctx context.Context, tid trace.TraceID) context.Context {
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: tid, SpanID: SpanID(tid, 0, "run"), TraceFlags: trace.FlagsSampled, Remote: true,
	})
	return trace.ContextWithRemoteSpanContext(ctx, sc)
}

// start starts a span; its name and every text it carries go through the
// redactor here, content or not (a run's name can hold a key).
func (m *Mapper) start(ctx context.Context, tid trace.TraceID, n int, part, name string, start time.Time, kind trace.SpanKind, attrs []attribute.KeyValue) (context.Context, trace.Span) {
	ctx = withIDs(ctx, tid, SpanID(tid, n, part))
	return m.Tracer.Start(ctx, m.redact(name), trace.WithTimestamp(start), trace.WithSpanKind(kind), trace.WithAttributes(m.clean(attrs)...))
}

// clean redacts the text of attributes: their string values and the
// strings of their slices (keys too, which hold setting names).
func (m *Mapper) clean(attrs []attribute.KeyValue) []attribute.KeyValue {
	out := make([]attribute.KeyValue, 0, len(attrs))
	for _, a := range attrs {
		k := attribute.Key(m.redact(string(a.Key)))
		switch a.Value.Type() {
		case attribute.STRING:
			a = k.String(m.redact(a.Value.AsString()))
		case attribute.STRINGSLICE:
			ss := a.Value.AsStringSlice()
			for i := range ss {
				ss[i] = m.redact(ss[i])
			}
			a = k.StringSlice(ss)
		default:
			a.Key = k
		}
		out = append(out, a)
	}
	return out
}

// RunSpan exports the root span of a run: status, totals and settings.
// The run's events become its span events: they are exported with the
// root, when the run has ended, so none is lost to an iteration span that
// was sent before the event was written.
func (m *Mapper) RunSpan(ctx context.Context, r Run, lastTS int64) {
	tid := TraceID(r.ID, r.CreatedAt)
	attrs := []attribute.KeyValue{attribute.String("loopkit.run.id", r.ID)}
	end := max(lastTS, r.CreatedAt)
	status := ""
	if meta := r.Meta; meta != nil {
		status = meta.Status
		attrs = append(attrs,
			attribute.String("loopkit.run.status", meta.Status),
			attribute.Int("loopkit.run.iterations", meta.Iteration),
			attribute.Int("loopkit.run.passed", meta.Passed),
			attribute.Int("loopkit.run.failed", meta.Failed),
			attribute.String("loopkit.validation.command", m.redact(meta.ValidationCommand)),
			attribute.Int64("loopkit.total_duration_ms", meta.TotalDurationMs),
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
				attrs = append(attrs, attribute.Int64(t.key, *t.v))
			}
		}
		if meta.Name != "" {
			attrs = append(attrs, attribute.String("loopkit.run.name", meta.Name))
		}
		if meta.TotalCostUSD != nil {
			attrs = append(attrs, attribute.Float64("loopkit.total_cost_usd", *meta.TotalCostUSD))
		}
		for k, v := range meta.Settings {
			if secretKey(k) {
				continue
			}
			attrs = append(attrs, attribute.String("loopkit.setting."+k, m.redact(v)))
		}
		end = max(end, meta.UpdatedAt)
	}
	_, span := m.start(ctx, tid, 0, "run", "loop.run", ms(r.CreatedAt), trace.SpanKindInternal, attrs)
	for _, e := range r.Events {
		m.addEvent(span, e)
	}
	switch status {
	case record.RunFailed, record.RunStuck:
		span.SetStatus(codes.Error, "run "+status)
	case record.RunCompleted:
		span.SetStatus(codes.Ok, "")
	}
	span.End(trace.WithTimestamp(ms(end)))
}

// IterationSpans exports iteration it of run r: the iteration span, the
// agent step with its tool calls, and the validation.
func (m *Mapper) IterationSpans(ctx context.Context, r Run, it *record.IterationLog) {
	tid := TraceID(r.ID, r.CreatedAt)
	n := it.Iteration
	vStart, vEnd := it.ValidationStartedAt, it.ValidationEndedAt
	if vStart == 0 {
		vEnd = it.CreatedAt
		vStart = vEnd - it.DurationMs
	}
	start, end := vStart, max(vEnd, it.CreatedAt)
	var aStart, aEnd int64
	if a := it.Agent; a != nil {
		aStart, aEnd = a.StartedAt, a.EndedAt
		if aStart == 0 {
			aEnd = vStart
			aStart = aEnd - a.DurationMs
		}
		start = min(start, aStart)
	}
	attrs := []attribute.KeyValue{
		attribute.String("loopkit.run.id", r.ID),
		attribute.Int("loopkit.iteration", n),
		attribute.String("loopkit.status", it.Status),
		attribute.Int("loopkit.exit_code", it.ExitCode),
		attribute.Int("loopkit.files_changed.count", len(it.FilesChanged)),
	}
	var failing []string
	for _, f := range it.Failures {
		failing = append(failing, f.Test)
	}
	if len(failing) > 0 {
		attrs = append(attrs, attribute.StringSlice("loopkit.failures", failing))
	}
	if it.TasksDone != nil && it.TasksTotal != nil {
		attrs = append(attrs, attribute.Int("loopkit.tasks_done", *it.TasksDone), attribute.Int("loopkit.tasks_total", *it.TasksTotal))
	}
	ictx, span := m.start(runParent(ctx, tid), tid, n, "iteration", "loop.iteration", ms(start), trace.SpanKindInternal, attrs)
	if it.Status != record.StatusPass {
		desc := m.redact(it.Status) + ": exit " + strconv.Itoa(it.ExitCode)
		if len(failing) > 0 {
			desc += fmt.Sprintf(", %d failing", len(failing))
		}
		span.SetStatus(codes.Error, m.redact(desc))
	}
	if a := it.Agent; a != nil {
		m.agentSpan(ictx, tid, n, "agent", a, usage{it.LLMInputTokens, it.LLMOutputTokens, it.LLMCacheReadTokens, it.LLMCacheCreationTokens, it.CostUSD}, it.ToolCalls, aStart, aEnd)
	}
	m.validationSpan(ictx, tid, n, it, vStart, vEnd)
	span.End(trace.WithTimestamp(ms(end)))
}

// AttemptSpan exports an agent call that is not an iteration (an
// interrupted or rate-limited step, a reviewer, a stuck report).
func (m *Mapper) AttemptSpan(ctx context.Context, r Run, at *record.Attempt) {
	if at.Agent == nil {
		return
	}
	tid := TraceID(r.ID, r.CreatedAt)
	a := at.Agent
	start, end := a.StartedAt, a.EndedAt
	if start == 0 {
		end = at.CreatedAt
		start = end - a.DurationMs
	}
	part := "attempt-" + strconv.Itoa(at.Attempt)
	m.agentSpan(runParent(ctx, tid), tid, 0, part, a, usage{at.LLMInputTokens, at.LLMOutputTokens, at.LLMCacheReadTokens, at.LLMCacheCreationTokens, at.CostUSD}, at.ToolCalls, start, end,
		attribute.String("loopkit.attempt.kind", at.Kind), attribute.Int("loopkit.attempt", at.Attempt))
}

type usage struct {
	in, out, cacheRead, cacheCreate *int64
	cost                            *float64
}

// providers maps the agent output formats to GenAI provider names.
var providers = map[string]attribute.KeyValue{
	"claude": semconv.GenAIProviderNameAnthropic,
	"codex":  semconv.GenAIProviderNameOpenAI,
	"gemini": semconv.GenAIProviderNameGCPGemini,
}

func (m *Mapper) agentSpan(ctx context.Context, tid trace.TraceID, n int, part string, a *record.Agent, u usage, calls []record.ToolCall, start, end int64, extra ...attribute.KeyValue) {
	name := "invoke_agent"
	if a.Format != "" {
		name += " " + m.redact(a.Format)
	}
	attrs := append([]attribute.KeyValue{
		semconv.GenAIOperationNameInvokeAgent,
		attribute.String("loopkit.agent.phase", a.Phase),
		attribute.String("loopkit.agent.command", m.redact(a.Command)),
		attribute.Bool("loopkit.agent.timed_out", a.TimedOut),
		attribute.Bool("loopkit.agent.completed", a.Completed),
	}, extra...)
	if p, ok := providers[a.Format]; ok {
		attrs = append(attrs, p)
	}
	if a.Format != "" {
		attrs = append(attrs, semconv.GenAIAgentName(a.Format))
	}
	if a.Model != "" {
		attrs = append(attrs, semconv.GenAIRequestModel(a.Model))
	}
	if a.SessionID != nil {
		attrs = append(attrs, semconv.GenAIConversationID(*a.SessionID))
	}
	if a.ExitCode != nil {
		attrs = append(attrs, attribute.Int("loopkit.agent.exit_code", *a.ExitCode))
	}
	attrs = append(attrs, usageAttrs(u)...)
	if m.IncludeContent && a.FinalMessage != "" {
		attrs = append(attrs, attribute.String("loopkit.agent.final_message", m.Redactor.Redact(a.FinalMessage)))
	}
	actx, span := m.start(ctx, tid, n, part, name, ms(start), trace.SpanKindClient, attrs)
	switch {
	case a.ErrorKind != nil:
		span.SetAttributes(semconv.ErrorTypeKey.String(m.redact(*a.ErrorKind)))
		span.SetStatus(codes.Error, m.redact(*a.ErrorKind))
	case a.TimedOut:
		span.SetAttributes(semconv.ErrorTypeKey.String("timeout"))
		span.SetStatus(codes.Error, "timed out")
	case a.ExitCode != nil && *a.ExitCode != 0:
		span.SetStatus(codes.Error, "exit "+strconv.Itoa(*a.ExitCode))
	}
	if a.RateLimited {
		span.AddEvent("rate_limited", trace.WithTimestamp(ms(end)))
	}
	m.toolSpans(actx, tid, n, part, calls, start, end)
	span.End(trace.WithTimestamp(ms(end)))
}

// usageAttrs carries the four token figures both ways: the GenAI
// conventions count cached tokens inside input_tokens, loopkit does not.
func usageAttrs(u usage) []attribute.KeyValue {
	var attrs []attribute.KeyValue
	val := func(p *int64) int64 {
		if p == nil {
			return 0
		}
		return *p
	}
	if u.in != nil {
		attrs = append(attrs, semconv.GenAIUsageInputTokens(int(val(u.in)+val(u.cacheRead)+val(u.cacheCreate))),
			attribute.Int64("loopkit.llm_input_tokens", *u.in))
	}
	if u.out != nil {
		attrs = append(attrs, semconv.GenAIUsageOutputTokens(int(*u.out)), attribute.Int64("loopkit.llm_output_tokens", *u.out))
	}
	if u.cacheRead != nil {
		attrs = append(attrs, semconv.GenAIUsageCacheReadInputTokens(int(*u.cacheRead)), attribute.Int64("loopkit.llm_cache_read_tokens", *u.cacheRead))
	}
	if u.cacheCreate != nil {
		attrs = append(attrs, semconv.GenAIUsageCacheCreationInputTokens(int(*u.cacheCreate)), attribute.Int64("loopkit.llm_cache_creation_tokens", *u.cacheCreate))
	}
	if u.cost != nil {
		attrs = append(attrs, attribute.Float64("loopkit.cost_usd", *u.cost))
	}
	return attrs
}

// toolSpans exports the step's tool calls. The record keeps their order
// but not their times, so they divide the step's time in order; the spans
// say so with loopkit.tool.timing=estimated.
func (m *Mapper) toolSpans(ctx context.Context, tid trace.TraceID, n int, part string, calls []record.ToolCall, start, end int64) {
	if len(calls) == 0 {
		return
	}
	step := max(end-start, 0) / int64(len(calls))
	for i, c := range calls {
		attrs := []attribute.KeyValue{
			semconv.GenAIOperationNameExecuteTool,
			semconv.GenAIToolName(c.ToolName),
			attribute.Int("loopkit.tool.index", i),
			attribute.String("loopkit.tool.timing", "estimated"),
		}
		if c.Subagent {
			attrs = append(attrs, attribute.Bool("loopkit.tool.subagent", true))
		}
		if m.IncludeContent {
			attrs = append(attrs,
				attribute.String("loopkit.tool.arguments_summary", m.Redactor.Redact(c.ArgumentsSummary)),
				attribute.String("loopkit.tool.result_summary", m.Redactor.Redact(c.ResultSummary)))
		}
		s := start + int64(i)*step
		_, span := m.start(ctx, tid, n, part+"/tool-"+strconv.Itoa(i), "execute_tool "+m.redact(c.ToolName), ms(s), trace.SpanKindInternal, attrs)
		if c.IsError {
			span.SetAttributes(semconv.ErrorTypeKey.String("tool_error"))
			span.SetStatus(codes.Error, "tool error")
		}
		span.End(trace.WithTimestamp(ms(s + step)))
	}
}

func (m *Mapper) validationSpan(ctx context.Context, tid trace.TraceID, n int, it *record.IterationLog, start, end int64) {
	attrs := []attribute.KeyValue{
		attribute.String("loopkit.validation.command", m.redact(it.ValidationCommand)),
		attribute.Int("loopkit.exit_code", it.ExitCode),
		attribute.Bool("loopkit.timed_out", it.TimedOut),
		attribute.Int64("loopkit.stdout_bytes", it.StdoutBytes),
		attribute.Int64("loopkit.stderr_bytes", it.StderrBytes),
	}
	if it.Signal != nil {
		attrs = append(attrs, attribute.String("loopkit.signal", *it.Signal))
	}
	if m.IncludeContent {
		attrs = append(attrs,
			attribute.String("loopkit.stdout_tail", m.Redactor.Redact(tailString(it.Stdout, contentChars))),
			attribute.String("loopkit.stderr_tail", m.Redactor.Redact(tailString(it.Stderr, contentChars))))
		if len(it.Failures) > 0 {
			msgs := make([]string, len(it.Failures))
			for i, f := range it.Failures {
				msgs[i] = m.Redactor.Redact(f.Message)
			}
			attrs = append(attrs, attribute.StringSlice("loopkit.failure_messages", msgs))
		}
	}
	_, span := m.start(ctx, tid, n, "validation", "loop.validation", ms(start), trace.SpanKindInternal, attrs)
	if it.Status != record.StatusPass {
		span.SetStatus(codes.Error, m.redact(it.Status)+": exit "+strconv.Itoa(it.ExitCode))
	}
	span.End(trace.WithTimestamp(ms(end)))
}

// addEvent records a store event (status change, rate limit, watchdog
// signal) as a span event. Messages and evidence are content.
func (m *Mapper) addEvent(span trace.Span, e record.Event) {
	attrs := []attribute.KeyValue{}
	if e.Status != "" {
		attrs = append(attrs, attribute.String("loopkit.status", e.Status))
	}
	if e.ExitCode != nil {
		attrs = append(attrs, attribute.Int("loopkit.exit_code", *e.ExitCode))
	}
	if e.Iteration != nil {
		attrs = append(attrs, attribute.Int("loopkit.iteration", *e.Iteration))
	}
	if e.Signal != "" {
		attrs = append(attrs, attribute.String("loopkit.signal", e.Signal))
	}
	if e.RateLimitResetsAt != nil {
		attrs = append(attrs, attribute.Int64("loopkit.rate_limit_resets_at", *e.RateLimitResetsAt))
	}
	if e.WaitMs != nil {
		attrs = append(attrs, attribute.Int64("loopkit.wait_ms", *e.WaitMs))
	}
	if m.IncludeContent {
		if e.Message != "" {
			attrs = append(attrs, attribute.String("loopkit.message", m.Redactor.Redact(e.Message)))
		}
		if e.Evidence != "" {
			attrs = append(attrs, attribute.String("loopkit.evidence", m.Redactor.Redact(e.Evidence)))
		}
	}
	span.AddEvent(m.redact(e.Type), trace.WithTimestamp(ms(e.TS)), trace.WithAttributes(m.clean(attrs)...))
}

// redact applies the secret patterns to text that is always sent (commands,
// settings) and to content.
func (m *Mapper) redact(s string) string {
	if m.Redactor == nil {
		return defaultRedactor.Redact(s)
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

func tailString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
