package otelexport

import (
	"net/url"
	"sort"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// kv is one attribute before it is written into a span: a key and a
// value of one of the kinds the mapping sends.
type kv struct {
	key  string
	kind byte // 's' string, 'i' int, 'f' float, 'b' bool, 'l' string list
	s    string
	i    int64
	f    float64
	ss   []string
}

func str(k, v string) kv           { return kv{key: k, kind: 's', s: v} }
func num(k string, v int64) kv     { return kv{key: k, kind: 'i', i: v} }
func float(k string, v float64) kv { return kv{key: k, kind: 'f', f: v} }
func strs(k string, v []string) kv { return kv{key: k, kind: 'l', ss: v} }
func boolean(k string, v bool) kv {
	if v {
		return kv{key: k, kind: 'b', i: 1}
	}
	return kv{key: k, kind: 'b'}
}

// The limits the tracing SDK applied before the mapping built spans
// itself: attributes per span (more are dropped and counted), events on
// the run's span (the oldest are dropped).
const (
	maxAttributes = 256
	maxEvents     = 4096
)

// put writes attrs into m, each key and text through the redactor; a key
// already there takes the new value, a new key past maxAttributes is
// dropped and counted.
func (m *Mapper) put(dst pcommon.Map, attrs []kv) (dropped uint32) {
	for _, a := range attrs {
		k := m.redact(a.key)
		if _, ok := dst.Get(k); !ok && dst.Len() >= maxAttributes {
			dropped++
			continue
		}
		switch a.kind {
		case 's':
			dst.PutStr(k, m.redact(a.s))
		case 'i':
			dst.PutInt(k, a.i)
		case 'f':
			dst.PutDouble(k, a.f)
		case 'b':
			dst.PutBool(k, a.i != 0)
		case 'l':
			l := dst.PutEmptySlice(k)
			l.EnsureCapacity(len(a.ss))
			for _, s := range a.ss {
				l.AppendEmpty().SetStr(m.redact(s))
			}
		}
	}
	return dropped
}

// resourceAttrs are the service's resource: service.name "loopkit" and
// its version, then OTEL_RESOURCE_ATTRIBUTES (k=v pairs, comma-separated,
// values percent-encoded) and OTEL_SERVICE_NAME over them, sorted by key
// as the SDK sent them.
func resourceAttrs(version string, getenv func(string) string) []kv {
	vals := map[string]string{"service.name": "loopkit", "service.version": version}
	for _, pair := range strings.Split(getenv("OTEL_RESOURCE_ATTRIBUTES"), ",") {
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			continue // the SDK skipped a malformed pair too
		}
		if u, err := url.PathUnescape(strings.TrimSpace(v)); err == nil {
			vals[k] = u
		}
	}
	if name := strings.TrimSpace(getenv("OTEL_SERVICE_NAME")); name != "" {
		vals["service.name"] = name
	}
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]kv, len(keys))
	for i, k := range keys {
		out[i] = str(k, vals[k])
	}
	return out
}

func ts(ms int64) pcommon.Timestamp { return pcommon.NewTimestampFromTime(time.UnixMilli(ms)) }

// Span flags as the SDK's OTLP exporter set them: the W3C sampled bit,
// and whether the parent is known to be remote (it is for spans under the
// run's root, which another request or process may carry).
const (
	flagSampled      = 0x01
	flagHasIsRemote  = 0x100
	flagParentRemote = 0x200
)

// The GenAI conventions' names (semantic conventions 1.40.0).
const (
	schemaURL      = "https://opentelemetry.io/schemas/1.40.0"
	keyOperation   = "gen_ai.operation.name"
	keyErrorType   = "error.type"
	scopeName      = "github.com/loopkit/loopkit/loop-export"
	kindInternal   = ptrace.SpanKindInternal
	kindClient     = ptrace.SpanKindClient
	opInvokeAgent  = "invoke_agent"
	opExecuteTool  = "execute_tool"
	keyProvider    = "gen_ai.provider.name"
	keyAgentName   = "gen_ai.agent.name"
	keyModel       = "gen_ai.request.model"
	keySessionID   = "gen_ai.conversation.id"
	keyToolName    = "gen_ai.tool.name"
	keyInputTokens = "gen_ai.usage.input_tokens"
)
