// Package modelapi is a scripted model API for tests: it answers like the
// Anthropic Messages API, the OpenAI Responses and Chat Completions APIs
// and Google's generateContent, so the real agent CLIs can run offline
// against turns and faults a scenario file gives.
package modelapi

import (
	"encoding/json"
	"fmt"
	"os"
)

// Scenario is what the server answers: the model's turns in order, then
// a fault for the first Times generation requests (0: every request).
type Scenario struct {
	Model string `json:"model,omitempty"`
	Turns []Turn `json:"turns"`
	Fault *Fault `json:"fault,omitempty"`
	// TextWithoutTools answers a request that offers no tools (a CLI's
	// session title or check) with text instead of the turn's tool calls.
	TextWithoutTools bool `json:"text_without_tools,omitempty"`
	// Repeat answers past the last turn with the last turn again: a model
	// that asks for tools for ever.
	Repeat bool `json:"repeat,omitempty"`
	// EventDelayMs waits this long before each streamed event: slow tokens.
	EventDelayMs int `json:"event_delay_ms,omitempty"`
}

// Turn is one model response: text, tool calls, and the usage reported.
// The server picks the turn from the conversation it is sent (the number
// of model turns already in it), so a retried request gets the same turn.
type Turn struct {
	Reasoning string     `json:"reasoning,omitempty"`
	Text      string     `json:"text,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	Usage     Usage      `json:"usage"`
}

// ToolCall names the tool per wire format (the CLIs name their tools
// differently), with the arguments as a JSON object.
type ToolCall struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// Usage is what the turn reports. Input excludes cache reads and writes,
// as Anthropic counts; the OpenAI and Google wires fold them back in.
// Output excludes reasoning, as Google counts; the others add it.
type Usage struct {
	Input         int64 `json:"input"`
	Output        int64 `json:"output"`
	CacheRead     int64 `json:"cache_read,omitempty"`
	CacheCreation int64 `json:"cache_creation,omitempty"`
	Reasoning     int64 `json:"reasoning,omitempty"`
}

// allOutput is output with reasoning, as Anthropic and OpenAI count it;
// Google reports thoughts beside candidates.
func (u Usage) allOutput() int64 { return u.Output + u.Reasoning }

// Fault kinds. Status faults answer with the provider's error body;
// stall sends the start of a stream and then nothing; hang never answers.
const (
	FaultAuth       = "auth"       // 401
	FaultPermission = "permission" // 403
	FaultRateLimit  = "rate_limit" // 429 with retry-after and rate-limit headers
	FaultServer     = "server"     // 500
	FaultOverloaded = "overloaded" // 529 on Anthropic's wire, 503 elsewhere
	FaultContext    = "context"    // 400, prompt too long
	FaultStall      = "stall"
	FaultHang       = "hang"
	// FaultTruncated starts a stream and cuts the connection mid-message;
	// FaultMalformed sends an event that is not JSON and ends the stream
	// there, without its closing events.
	FaultTruncated = "truncated"
	FaultMalformed = "malformed"
)

// Fault makes the first Times generation requests fail (0: all of them).
type Fault struct {
	Kind       string `json:"kind"`
	Times      int    `json:"times,omitempty"`
	RetryAfter int    `json:"retry_after,omitempty"` // seconds, for rate_limit and overloaded
	// NoRetryAfter sends no retry-after headers (nor Google's RetryInfo):
	// the client is left to its own backoff.
	NoRetryAfter bool `json:"no_retry_after,omitempty"`
}

// Load reads a scenario file.
func Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Scenario
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("scenario %s: %v", path, err)
	}
	return &s, s.check()
}

func (s *Scenario) check() error {
	if s.Fault != nil {
		switch s.Fault.Kind {
		case FaultAuth, FaultPermission, FaultRateLimit, FaultServer, FaultOverloaded, FaultContext, FaultStall, FaultHang, FaultTruncated, FaultMalformed,
			FaultBilling, FaultModel, FaultBadGateway, FaultReset, FaultRedirect:
		default:
			return fmt.Errorf("scenario: unknown fault kind %q", s.Fault.Kind)
		}
	}
	for i, t := range s.Turns {
		for _, c := range t.ToolCalls {
			if c.Name == "" || (len(c.Args) > 0 && !json.Valid(c.Args)) {
				return fmt.Errorf("scenario: turn %d: a tool call needs a name and JSON args", i+1)
			}
		}
	}
	return nil
}

// turn gives turn n (0-based); past the end, a closing text turn so a CLI
// that asks again ends cleanly.
func (s *Scenario) turn(n int) Turn {
	if n < len(s.Turns) {
		return s.Turns[n]
	}
	if s.Repeat && len(s.Turns) > 0 {
		return s.Turns[len(s.Turns)-1]
	}
	return Turn{Text: "Done.", Usage: Usage{Input: 10, Output: 2}}
}

func (s *Scenario) model(asked string) string {
	if asked != "" {
		return asked
	}
	if s.Model != "" {
		return s.Model
	}
	return "scripted-model"
}

func (c ToolCall) args() json.RawMessage {
	if len(c.Args) == 0 {
		return json.RawMessage(`{}`)
	}
	return c.Args
}
