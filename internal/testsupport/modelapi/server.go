package modelapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Wire formats the server speaks.
const (
	WireAnthropic = "anthropic"
	WireResponses = "responses"
	WireChat      = "chat"
	WireGemini    = "gemini"
)

// Request is one request the server saw, for the tests' assertions.
type Request struct {
	At     time.Time `json:"at"`
	Method string    `json:"method"`
	Path   string    `json:"path"`
	Wire   string    `json:"wire,omitempty"`
	Turn   int       `json:"turn"`            // 0-based turn answered, -1 for none
	Fault  string    `json:"fault,omitempty"` // the fault answered instead
	Stream bool      `json:"stream,omitempty"`
	Side   bool      `json:"side,omitempty"` // offered no tools: a title or a check, answered with text
	Model  string    `json:"model,omitempty"`
}

// Server answers requests from its scenario. It is an http.Handler; the
// zero value is not usable, use New.
type Server struct {
	sc *Scenario

	mu       sync.Mutex
	reqs     []Request
	faulted  int
	bodies   []string // the last requests' bodies, for debugging
	hangs    chan struct{}
	hangOnce sync.Once
}

// New returns a server answering from sc.
func New(sc *Scenario) *Server {
	return &Server{sc: sc, hangs: make(chan struct{})}
}

// Close releases stalled and hanging requests, so an httptest server can
// shut down.
func (s *Server) Close() { s.hangOnce.Do(func() { close(s.hangs) }) }

// Requests returns what the server saw so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Bodies returns the bodies of the generation requests seen so far.
func (s *Server) Bodies() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	p := r.URL.Path
	rec := Request{At: time.Now(), Method: r.Method, Path: p, Turn: -1}
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/messages/count_tokens"):
		rec.Wire = WireAnthropic
		s.log(rec, body)
		writeJSON(w, 200, map[string]any{"input_tokens": estimateTokens(body)})
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/messages"):
		rec.Wire = WireAnthropic
		s.generate(w, r, rec, body, anthropicWire{})
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/responses"):
		rec.Wire = WireResponses
		s.generate(w, r, rec, body, responsesWire{})
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/chat/completions"):
		rec.Wire = WireChat
		s.generate(w, r, rec, body, chatWire{})
	case r.Method == http.MethodPost && strings.HasSuffix(p, ":countTokens"):
		rec.Wire = WireGemini
		s.log(rec, body)
		writeJSON(w, 200, map[string]any{"totalTokens": estimateTokens(body)})
	case r.Method == http.MethodPost && (strings.HasSuffix(p, ":generateContent") || strings.HasSuffix(p, ":streamGenerateContent")):
		rec.Wire = WireGemini
		s.generate(w, r, rec, body, geminiWire{stream: strings.HasSuffix(p, ":streamGenerateContent"), model: geminiModel(p)})
	case p == portalPath: // where FaultRedirect sends the client
		s.log(rec, nil)
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, portalPage)
	case r.Method == http.MethodHead: // connectivity checks (Claude Code's /api/hello)
		s.log(rec, nil)
		w.WriteHeader(200)
	case r.Method == http.MethodGet && strings.HasSuffix(p, "/models"):
		s.log(rec, nil)
		writeJSON(w, 200, map[string]any{"object": "list", "data": []any{map[string]any{"id": s.sc.model(""), "object": "model", "owned_by": "scripted"}}})
	default:
		s.log(rec, body)
		writeJSON(w, 404, map[string]any{"error": map[string]any{"message": "modelapi: no route for " + r.Method + " " + p}})
	}
}

func (s *Server) log(rec Request, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, rec)
	if body != nil {
		s.bodies = append(s.bodies, string(body))
		if len(s.bodies) > 20 {
			s.bodies = s.bodies[1:]
		}
	}
}

// wire is one API's request reading and response writing.
type wire interface {
	// parse reads the model asked for, whether to stream, and how many
	// model turns the conversation already holds.
	parse(body []byte) (model string, stream bool, turns int, err error)
	writeTurn(w http.ResponseWriter, model string, stream bool, t Turn, id string)
	// writeError answers a status fault in the provider's own shape.
	writeError(w http.ResponseWriter, kind string, retryAfter int)
	// writeStall starts a streamed answer and stops mid-message.
	writeStall(w http.ResponseWriter, model string, t Turn, id string)
	// writeMalformed writes one event whose data is not JSON.
	writeMalformed(w http.ResponseWriter)
}

func (s *Server) generate(w http.ResponseWriter, r *http.Request, rec Request, body []byte, wi wire) {
	model, stream, turns, err := wi.parse(body)
	if err != nil {
		s.log(rec, body)
		writeJSON(w, 400, map[string]any{"error": map[string]any{"message": "modelapi: " + err.Error()}})
		return
	}
	model = s.sc.model(model)
	rec.Model, rec.Stream, rec.Turn = model, stream, turns
	t := s.sc.turn(turns)
	// every wire offers tools in a top-level "tools": a request without
	// them (opencode's session title) cannot take the turn's tool calls
	var probe struct {
		Tools []json.RawMessage `json:"tools"`
	}
	json.Unmarshal(body, &probe)
	if s.sc.TextWithoutTools && len(probe.Tools) == 0 && len(t.ToolCalls) > 0 {
		rec.Side = true
		t = Turn{Text: "Scripted answer.", Usage: Usage{Input: 10, Output: 3}}
	}
	s.mu.Lock()
	f := s.sc.Fault
	if f != nil && (f.Times == 0 || s.faulted < f.Times) {
		s.faulted++
		rec.Fault = f.Kind
	} else {
		f = nil
	}
	n := len(s.reqs)
	s.mu.Unlock()
	s.log(rec, body)
	id := fmt.Sprintf("%d", n+1)
	if d := s.sc.EventDelayMs; d > 0 {
		w = &slowWriter{ResponseWriter: w, delay: time.Duration(d) * time.Millisecond, done: r.Context().Done()}
	}
	if f == nil {
		wi.writeTurn(w, model, stream, t, id)
		return
	}
	switch f.Kind {
	case FaultHang:
		select { // never answers: not even the headers
		case <-r.Context().Done():
		case <-s.hangs:
		}
	case FaultStall:
		wi.writeStall(w, model, t, id)
		flush(w)
		select {
		case <-r.Context().Done():
		case <-s.hangs:
		}
	case FaultTruncated:
		wi.writeStall(w, model, t, id)
		flush(w)
		panic(http.ErrAbortHandler) // the connection is cut, the body never ends
	case FaultMalformed:
		wi.writeStall(w, model, t, id)
		wi.writeMalformed(w)
		flush(w)
	case FaultBilling, FaultModel, FaultBadGateway, FaultReset, FaultRedirect:
		writeExtraFault(w, r, wi, f.Kind, model)
	default:
		retry := f.RetryAfter
		if f.NoRetryAfter {
			retry = 0
		} else if retry == 0 && (f.Kind == FaultRateLimit || f.Kind == FaultOverloaded) {
			retry = 1
		}
		wi.writeError(w, f.Kind, retry)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// sse writes one server-sent event; an empty event name writes data only.
func sse(w http.ResponseWriter, event string, v any) {
	data, _ := json.Marshal(v)
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", data)
	flush(w)
}

func sseHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(200)
}

// slowWriter holds each flushed event back for its delay: slow tokens.
type slowWriter struct {
	http.ResponseWriter
	delay time.Duration
	done  <-chan struct{}
}

func (s *slowWriter) Flush() {
	select {
	case <-time.After(s.delay):
	case <-s.done:
	}
	flush(s.ResponseWriter)
}

func flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// estimateTokens is count_tokens' answer: about four bytes a token.
func estimateTokens(body []byte) int { return len(body)/4 + 1 }

// malformedData is the data of the event that is not JSON: an object cut
// after its first field, as a broken proxy might send.
const malformedData = `{"type":"content_block_delta","index":0,"delta":{"type":"text_del`

// statusOf maps a fault to its HTTP status; overload is 529 on
// Anthropic's wire and 503 on the others.
func statusOf(kind string, anthropic bool) int {
	switch kind {
	case FaultAuth:
		return 401
	case FaultPermission:
		return 403
	case FaultRateLimit:
		return 429
	case FaultServer:
		return 500
	case FaultOverloaded:
		if anthropic {
			return 529
		}
		return 503
	case FaultContext:
		return 400
	}
	return 500
}

// Error messages, close to what each provider says.
var faultMessages = map[string]string{
	FaultAuth:       "invalid x-api-key",
	FaultPermission: "Your API key does not have permission to use the specified resource.",
	FaultRateLimit:  "Rate limit reached: This request would exceed the rate limit for your organization of 50 requests per minute.",
	FaultServer:     "Internal server error",
	FaultOverloaded: "Overloaded",
	FaultContext:    "prompt is too long: 212345 tokens > 200000 maximum",
}

func retryHeaders(w http.ResponseWriter, kind string, retryAfter int) {
	if retryAfter > 0 && (kind == FaultRateLimit || kind == FaultOverloaded) {
		w.Header().Set("Retry-After", fmt.Sprint(retryAfter))
		w.Header().Set("Retry-After-Ms", fmt.Sprint(retryAfter*1000))
	}
}
