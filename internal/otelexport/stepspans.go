package otelexport

import (
	"strconv"

	"github.com/loopkit/loopkit/internal/record"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// The spans of an agent step, its tool calls and a validation.

type usage struct {
	in, out, cacheRead, cacheCreate *int64
	cost                            *float64
}

// providers maps the agent output formats to GenAI provider names.
var providers = map[string]string{
	"claude": "anthropic",
	"codex":  "openai",
	"gemini": "gcp.gemini",
}

func (m *Mapper) agentSpan(tid pcommon.TraceID, n int, part string, parent pcommon.SpanID, remote bool, a *record.Agent, u usage, calls []record.ToolCall, start, end int64, extra ...kv) {
	name := "invoke_agent"
	if a.Format != "" {
		name += " " + m.redact(a.Format)
	}
	attrs := append([]kv{
		str(keyOperation, opInvokeAgent),
		str("loopkit.agent.phase", a.Phase),
		str("loopkit.agent.command", m.redact(a.Command)),
		boolean("loopkit.agent.timed_out", a.TimedOut),
		boolean("loopkit.agent.completed", a.Completed),
	}, extra...)
	if p, ok := providers[a.Format]; ok {
		attrs = append(attrs, str(keyProvider, p))
	}
	if a.Format != "" {
		attrs = append(attrs, str(keyAgentName, a.Format))
	}
	if a.Model != "" {
		attrs = append(attrs, str(keyModel, a.Model))
	}
	if a.SessionID != nil {
		attrs = append(attrs, str(keySessionID, *a.SessionID))
	}
	if a.ExitCode != nil {
		attrs = append(attrs, num("loopkit.agent.exit_code", int64(*a.ExitCode)))
	}
	attrs = append(attrs, usageAttrs(u)...)
	if m.IncludeContent && a.FinalMessage != "" {
		attrs = append(attrs, str("loopkit.agent.final_message", m.Redactor.Redact(a.FinalMessage)))
	}
	span := m.start(tid, n, part, parent, remote, name, start, kindClient, attrs)
	switch {
	case a.ErrorKind != nil:
		m.addAttrs(span, str(keyErrorType, m.redact(*a.ErrorKind)))
		setError(span, m.redact(*a.ErrorKind))
	case a.TimedOut:
		m.addAttrs(span, str(keyErrorType, "timeout"))
		setError(span, "timed out")
	case a.ExitCode != nil && *a.ExitCode != 0:
		setError(span, "exit "+strconv.Itoa(*a.ExitCode))
	}
	if a.RateLimited {
		e := span.Events().AppendEmpty()
		e.SetName("rate_limited")
		e.SetTimestamp(ts(end))
	}
	span.SetEndTimestamp(ts(end))
	m.toolSpans(tid, n, part, span.SpanID(), calls, start, end)
}

// usageAttrs carries the four token figures both ways: the GenAI
// conventions count cached tokens inside input_tokens, loopkit does not.
func usageAttrs(u usage) []kv {
	var attrs []kv
	val := func(p *int64) int64 {
		if p == nil {
			return 0
		}
		return *p
	}
	if u.in != nil {
		attrs = append(attrs, num(keyInputTokens, val(u.in)+val(u.cacheRead)+val(u.cacheCreate)),
			num("loopkit.llm_input_tokens", *u.in))
	}
	if u.out != nil {
		attrs = append(attrs, num("gen_ai.usage.output_tokens", *u.out), num("loopkit.llm_output_tokens", *u.out))
	}
	if u.cacheRead != nil {
		attrs = append(attrs, num("gen_ai.usage.cache_read.input_tokens", *u.cacheRead), num("loopkit.llm_cache_read_tokens", *u.cacheRead))
	}
	if u.cacheCreate != nil {
		attrs = append(attrs, num("gen_ai.usage.cache_creation.input_tokens", *u.cacheCreate), num("loopkit.llm_cache_creation_tokens", *u.cacheCreate))
	}
	if u.cost != nil {
		attrs = append(attrs, float("loopkit.cost_usd", *u.cost))
	}
	return attrs
}

// toolSpans maps the step's tool calls. The record keeps their order but
// not their times, so they divide the step's time in order; the spans say
// so with loopkit.tool.timing=estimated.
func (m *Mapper) toolSpans(tid pcommon.TraceID, n int, part string, parent pcommon.SpanID, calls []record.ToolCall, start, end int64) {
	if len(calls) == 0 {
		return
	}
	step := max(end-start, 0) / int64(len(calls))
	for i, c := range calls {
		attrs := []kv{
			str(keyOperation, opExecuteTool),
			str(keyToolName, c.ToolName),
			num("loopkit.tool.index", int64(i)),
			str("loopkit.tool.timing", "estimated"),
		}
		if c.Subagent {
			attrs = append(attrs, boolean("loopkit.tool.subagent", true))
		}
		if m.IncludeContent {
			attrs = append(attrs,
				str("loopkit.tool.arguments_summary", m.Redactor.Redact(c.ArgumentsSummary)),
				str("loopkit.tool.result_summary", m.Redactor.Redact(c.ResultSummary)))
		}
		s := start + int64(i)*step
		span := m.start(tid, n, part+"/tool-"+strconv.Itoa(i), parent, false, "execute_tool "+m.redact(c.ToolName), s, kindInternal, attrs)
		if c.IsError {
			m.addAttrs(span, str(keyErrorType, "tool_error"))
			setError(span, "tool error")
		}
		span.SetEndTimestamp(ts(s + step))
	}
}

func (m *Mapper) validationSpan(tid pcommon.TraceID, n int, parent pcommon.SpanID, it *record.IterationLog, start, end int64) {
	attrs := []kv{
		str("loopkit.validation.command", m.redact(it.ValidationCommand)),
		num("loopkit.exit_code", int64(it.ExitCode)),
		boolean("loopkit.timed_out", it.TimedOut),
		num("loopkit.stdout_bytes", it.StdoutBytes),
		num("loopkit.stderr_bytes", it.StderrBytes),
	}
	if it.Signal != nil {
		attrs = append(attrs, str("loopkit.signal", *it.Signal))
	}
	if m.IncludeContent {
		attrs = append(attrs,
			str("loopkit.stdout_tail", m.Redactor.Redact(tailString(it.Stdout, contentChars))),
			str("loopkit.stderr_tail", m.Redactor.Redact(tailString(it.Stderr, contentChars))))
		if len(it.Failures) > 0 {
			msgs := make([]string, len(it.Failures))
			for i, f := range it.Failures {
				msgs[i] = m.Redactor.Redact(f.Message)
			}
			attrs = append(attrs, strs("loopkit.failure_messages", msgs))
		}
	}
	span := m.start(tid, n, "validation", parent, false, "loop.validation", start, kindInternal, attrs)
	if it.Status != record.StatusPass {
		setError(span, m.redact(it.Status)+": exit "+strconv.Itoa(it.ExitCode))
	}
	span.SetEndTimestamp(ts(end))
}
