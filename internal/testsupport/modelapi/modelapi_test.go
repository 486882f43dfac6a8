package modelapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	openai "github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"google.golang.org/genai"
)

// The server's answers are read back with the providers' official Go
// SDKs: their decoders and stream accumulators are the judges of the
// shapes, so a field the SDK expects and the server forgot shows here.

var twoTurns = &Scenario{Model: "scripted", Turns: []Turn{
	{Reasoning: "think", Text: "Writing it.", ToolCalls: []ToolCall{{Name: "write", Args: json.RawMessage(`{"path":"a.txt","content":"hi"}`)}},
		Usage: Usage{Input: 100, Output: 20, CacheRead: 1000, CacheCreation: 300, Reasoning: 7}},
	{Text: "Done.", Usage: Usage{Input: 5, Output: 3}},
}}

func start(t *testing.T, sc *Scenario) (*Server, string) {
	t.Helper()
	s := New(sc)
	hs := httptest.NewServer(s)
	t.Cleanup(func() { s.Close(); hs.Close() })
	return s, hs.URL
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

func anthropicClient(url string) anthropic.Client {
	return anthropic.NewClient(aoption.WithBaseURL(url), aoption.WithAPIKey("k"), aoption.WithMaxRetries(0))
}

func anthropicParams(msgs ...anthropic.MessageParam) anthropic.MessageNewParams {
	if len(msgs) == 0 {
		msgs = []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("go"))}
	}
	return anthropic.MessageNewParams{Model: "claude-scripted", MaxTokens: 100, Messages: msgs}
}

func TestAnthropicStreamAndPlain(t *testing.T) {
	s, url := start(t, twoTurns)
	c := anthropicClient(url)
	stream := c.Messages.NewStreaming(ctx(t), anthropicParams())
	var msg anthropic.Message
	for stream.Next() {
		if err := msg.Accumulate(stream.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 3 || msg.Content[0].Type != "thinking" || msg.Content[1].Text != "Writing it." ||
		msg.Content[2].Name != "write" || string(msg.Content[2].Input) != `{"path":"a.txt","content":"hi"}` {
		t.Fatalf("content %+v", msg.Content)
	}
	u := msg.Usage
	if u.InputTokens != 100 || u.OutputTokens != 27 || u.CacheReadInputTokens != 1000 || u.CacheCreationInputTokens != 300 || msg.StopReason != "tool_use" {
		t.Fatalf("usage %+v stop %q", u, msg.StopReason)
	}
	// the conversation holds one assistant turn: the second turn answers
	plain, err := c.Messages.New(ctx(t), anthropicParams(
		anthropic.NewUserMessage(anthropic.NewTextBlock("go")),
		anthropic.NewAssistantMessage(anthropic.NewTextBlock("Writing it.")),
		anthropic.NewUserMessage(anthropic.NewTextBlock("ok"))))
	if err != nil {
		t.Fatal(err)
	}
	if plain.Content[0].Text != "Done." || plain.Usage.OutputTokens != 3 || plain.StopReason != "end_turn" {
		t.Fatalf("plain %+v", plain)
	}
	n, err := c.Messages.CountTokens(ctx(t), anthropic.MessageCountTokensParams{Model: "claude-scripted",
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("go"))}})
	if err != nil || n.InputTokens <= 0 {
		t.Fatalf("count_tokens %+v %v", n, err)
	}
	reqs := s.Requests()
	if len(reqs) != 3 || reqs[0].Turn != 0 || reqs[1].Turn != 1 || !reqs[0].Stream || reqs[1].Stream {
		t.Fatalf("requests %+v", reqs)
	}
}

// A request that offers no tools (opencode's session title) gets text,
// not the turn's tool calls.
func TestSideRequestGetsText(t *testing.T) {
	s, url := start(t, &Scenario{Turns: twoTurns.Turns, TextWithoutTools: true})
	c := openai.NewClient(ooption.WithBaseURL(url+"/v1"), ooption.WithAPIKey("k"), ooption.WithMaxRetries(0))
	r, err := c.Chat.Completions.New(ctx(t), openai.ChatCompletionNewParams{Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("title?")}})
	if err != nil || r.Choices[0].Message.Content != "Scripted answer." || len(r.Choices[0].Message.ToolCalls) != 0 || !s.Requests()[0].Side {
		t.Fatalf("%+v %v", r, err)
	}
}

func TestResponsesStream(t *testing.T) {
	_, url := start(t, twoTurns)
	c := openai.NewClient(ooption.WithBaseURL(url+"/v1"), ooption.WithAPIKey("k"), ooption.WithMaxRetries(0))
	stream := c.Responses.NewStreaming(ctx(t), responses.ResponseNewParams{Model: "gpt-scripted",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("go")}})
	var done *responses.Response
	var text strings.Builder
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "response.output_text.delta":
			text.WriteString(ev.Delta)
		case "response.completed":
			r := ev.Response
			done = &r
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if done == nil || text.String() != "Writing it." || done.OutputText() != "Writing it." {
		t.Fatalf("text %q, completed %v", text.String(), done != nil)
	}
	var call responses.ResponseFunctionToolCall
	for _, it := range done.Output {
		if it.Type == "function_call" {
			call = it.AsFunctionCall()
		}
	}
	if call.Name != "write" || call.Arguments != `{"path":"a.txt","content":"hi"}` || call.CallID == "" {
		t.Fatalf("call %+v", call)
	}
	u := done.Usage
	if u.InputTokens != 1400 || u.InputTokensDetails.CachedTokens != 1000 || u.OutputTokens != 27 || u.OutputTokensDetails.ReasoningTokens != 7 {
		t.Fatalf("usage %+v", u)
	}
}

func TestChatCompletionsStream(t *testing.T) {
	_, url := start(t, twoTurns)
	c := openai.NewClient(ooption.WithBaseURL(url+"/v1"), ooption.WithAPIKey("k"), ooption.WithMaxRetries(0))
	stream := c.Chat.Completions.NewStreaming(ctx(t), openai.ChatCompletionNewParams{Model: "scripted",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("go")}})
	var acc openai.ChatCompletionAccumulator
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	m := acc.Choices[0].Message
	if m.Content != "Writing it." || len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Name != "write" ||
		m.ToolCalls[0].Function.Arguments != `{"path":"a.txt","content":"hi"}` || acc.Choices[0].FinishReason != "tool_calls" {
		t.Fatalf("message %+v", acc.Choices[0])
	}
	u := acc.Usage
	if u.PromptTokens != 1400 || u.PromptTokensDetails.CachedTokens != 1000 || u.CompletionTokens != 27 || u.CompletionTokensDetails.ReasoningTokens != 7 {
		t.Fatalf("usage %+v", u)
	}
	plain, err := c.Chat.Completions.New(ctx(t), openai.ChatCompletionNewParams{Model: "scripted",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("go"), openai.AssistantMessage("Writing it."), openai.UserMessage("ok")}})
	if err != nil || plain.Choices[0].Message.Content != "Done." {
		t.Fatalf("plain %+v %v", plain, err)
	}
}

func geminiClient(t *testing.T, url string) *genai.Client {
	c, err := genai.NewClient(ctx(t), &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: url}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestGeminiStreamAndPlain(t *testing.T) {
	s, url := start(t, twoTurns)
	c := geminiClient(t, url)
	var text, thought string
	var call *genai.FunctionCall
	var usage *genai.GenerateContentResponseUsageMetadata
	for resp, err := range c.Models.GenerateContentStream(ctx(t), "gemini-scripted", genai.Text("go"), nil) {
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range resp.Candidates[0].Content.Parts {
			switch {
			case p.Thought:
				thought += p.Text
			case p.FunctionCall != nil:
				call = p.FunctionCall
			default:
				text += p.Text
			}
		}
		if resp.UsageMetadata != nil {
			usage = resp.UsageMetadata
		}
	}
	if text != "Writing it." || thought != "think" || call == nil || call.Name != "write" || call.Args["path"] != "a.txt" {
		t.Fatalf("text %q thought %q call %+v", text, thought, call)
	}
	if usage.PromptTokenCount != 1400 || usage.CachedContentTokenCount != 1000 || usage.CandidatesTokenCount != 20 || usage.ThoughtsTokenCount != 7 {
		t.Fatalf("usage %+v", usage)
	}
	history := []*genai.Content{genai.NewContentFromText("go", genai.RoleUser), genai.NewContentFromText("Writing it.", genai.RoleModel), genai.NewContentFromText("ok", genai.RoleUser)}
	plain, err := c.Models.GenerateContent(ctx(t), "gemini-scripted", history, nil)
	if err != nil || plain.Text() != "Done." {
		t.Fatalf("plain %+v %v", plain, err)
	}
	n, err := c.Models.CountTokens(ctx(t), "gemini-scripted", genai.Text("go"), nil)
	if err != nil || n.TotalTokens <= 0 {
		t.Fatalf("countTokens %+v %v", n, err)
	}
	if r := s.Requests(); r[0].Model != "gemini-scripted" || !r[0].Stream || r[1].Turn != 1 {
		t.Fatalf("requests %+v", r)
	}
}

// Each status fault reaches each SDK as the provider's error: its status,
// its error type, and on a 429 the retry-after the CLIs read.
func TestStatusFaults(t *testing.T) {
	for _, tc := range []struct {
		kind              string
		anthropic, others int
		anthropicType     string
		geminiStatus      string
	}{
		{FaultAuth, 401, 401, "authentication_error", "UNAUTHENTICATED"},
		{FaultPermission, 403, 403, "permission_error", "PERMISSION_DENIED"},
		{FaultRateLimit, 429, 429, "rate_limit_error", "RESOURCE_EXHAUSTED"},
		{FaultServer, 500, 500, "api_error", "INTERNAL"},
		{FaultOverloaded, 529, 503, "overloaded_error", "UNAVAILABLE"},
		{FaultContext, 400, 400, "invalid_request_error", "INVALID_ARGUMENT"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			_, url := start(t, &Scenario{Turns: twoTurns.Turns, Fault: &Fault{Kind: tc.kind, RetryAfter: 3}})
			ac := anthropicClient(url)
			_, err := ac.Messages.New(ctx(t), anthropicParams())
			var aerr *anthropic.Error
			if !errors.As(err, &aerr) || aerr.StatusCode != tc.anthropic || !strings.Contains(aerr.RawJSON(), tc.anthropicType) {
				t.Fatalf("anthropic: %v", err)
			}
			if tc.kind == FaultRateLimit {
				h := aerr.Response.Header
				if h.Get("retry-after") != "3" || h.Get("anthropic-ratelimit-requests-remaining") != "0" || h.Get("anthropic-ratelimit-requests-reset") == "" {
					t.Fatalf("anthropic 429 headers %v", h)
				}
			}
			oc := openai.NewClient(ooption.WithBaseURL(url+"/v1"), ooption.WithAPIKey("k"), ooption.WithMaxRetries(0))
			_, err = oc.Chat.Completions.New(ctx(t), openai.ChatCompletionNewParams{Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("go")}})
			var oerr *openai.Error
			if !errors.As(err, &oerr) || oerr.StatusCode != tc.others || oerr.Message == "" {
				t.Fatalf("chat: %v", err)
			}
			if tc.kind == FaultRateLimit && (oerr.Response.Header.Get("x-ratelimit-remaining-requests") != "0" || oerr.Code != "rate_limit_exceeded") {
				t.Fatalf("openai 429 %v %q", oerr.Response.Header, oerr.Code)
			}
			_, err = oc.Responses.New(ctx(t), responses.ResponseNewParams{Model: "m", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("go")}})
			if !errors.As(err, &oerr) || oerr.StatusCode != tc.others {
				t.Fatalf("responses: %v", err)
			}
			_, err = geminiClient(t, url).Models.GenerateContent(ctx(t), "g", genai.Text("go"), nil)
			var gerr genai.APIError
			if !errors.As(err, &gerr) || gerr.Code != tc.others || gerr.Status != tc.geminiStatus {
				t.Fatalf("gemini: %#v", err)
			}
			if tc.kind == FaultRateLimit && !strings.Contains(gerr.Message, "retry in 3s") {
				t.Fatalf("gemini 429 %q", gerr.Message)
			}
		})
	}
}

// A cut stream and a malformed one both fail the official SDK's stream:
// the first as a broken body, the second as an event it cannot decode.
// A 429 without retry-after carries no header nor Google RetryInfo.
func TestCutStreamsAndNoRetryAfter(t *testing.T) {
	for _, kind := range []string{FaultTruncated, FaultMalformed} {
		_, url := start(t, &Scenario{Turns: twoTurns.Turns, Fault: &Fault{Kind: kind}})
		c := anthropicClient(url)
		stream := c.Messages.NewStreaming(ctx(t), anthropicParams())
		var msg anthropic.Message
		for stream.Next() {
			msg.Accumulate(stream.Current())
		}
		if stream.Err() == nil || msg.StopReason != "" {
			t.Errorf("%s: stream ended cleanly (%v), stop %q", kind, stream.Err(), msg.StopReason)
		}
	}
	_, url := start(t, &Scenario{Turns: twoTurns.Turns, Fault: &Fault{Kind: FaultRateLimit, NoRetryAfter: true}})
	c := anthropicClient(url)
	_, err := c.Messages.New(ctx(t), anthropicParams())
	var aerr *anthropic.Error
	if !errors.As(err, &aerr) || aerr.StatusCode != 429 || aerr.Response.Header.Get("retry-after") != "" || aerr.Response.Header.Get("retry-after-ms") != "" {
		t.Fatalf("429 without retry-after: %v", err)
	}
	_, err = geminiClient(t, url).Models.GenerateContent(ctx(t), "g", genai.Text("go"), nil)
	var gerr genai.APIError
	if !errors.As(err, &gerr) || gerr.Code != 429 || strings.Contains(gerr.Message, "retry in") || strings.Contains(fmt.Sprint(gerr.Details), "RetryInfo") {
		t.Fatalf("gemini 429 without retry info: %#v", err)
	}
}

// A fault for the first Times requests, then the turns: what a CLI's own
// retry sees when the API recovers.
func TestFaultTimes(t *testing.T) {
	s, url := start(t, &Scenario{Turns: twoTurns.Turns, Fault: &Fault{Kind: FaultOverloaded, Times: 2}})
	c := anthropicClient(url)
	for i := 0; i < 2; i++ {
		if _, err := c.Messages.New(ctx(t), anthropicParams()); err == nil {
			t.Fatalf("request %d: no fault", i+1)
		}
	}
	if m, err := c.Messages.New(ctx(t), anthropicParams()); err != nil || m.Content[1].Text != "Writing it." {
		t.Fatalf("after the faults: %+v %v", m, err)
	}
	if r := s.Requests(); r[0].Fault != FaultOverloaded || r[2].Fault != "" {
		t.Fatalf("requests %+v", r)
	}
}

// A stall sends the start of a message and then nothing; a hang sends
// nothing at all. Both hold the connection until the client gives up.
func TestStallAndHang(t *testing.T) {
	for _, kind := range []string{FaultStall, FaultHang} {
		t.Run(kind, func(t *testing.T) {
			s, url := start(t, &Scenario{Fault: &Fault{Kind: kind}})
			c, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			req, _ := http.NewRequestWithContext(c, "POST", url+"/v1/messages", strings.NewReader(`{"model":"m","stream":true,"messages":[]}`))
			resp, err := http.DefaultClient.Do(req)
			if kind == FaultHang {
				if err == nil || !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("hang answered: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			buf := make([]byte, 4096)
			var got strings.Builder
			for !strings.Contains(got.String(), "Let me look") {
				n, err := resp.Body.Read(buf)
				got.Write(buf[:n])
				if err != nil {
					t.Fatalf("stream ended before the stall: %v %q", err, got.String())
				}
			}
			if _, err := resp.Body.Read(buf); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("stall went on: %v", err)
			}
			if strings.Contains(got.String(), "message_stop") || s.Requests()[0].Fault != kind {
				t.Fatalf("stalled stream %q", got.String())
			}
		})
	}
}

func TestLoadScenario(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	os.WriteFile(good, []byte(`{"turns":[{"text":"hi","tool_calls":[{"name":"Bash","args":{"command":"ls"}}],"usage":{"input":1,"output":2}}],"fault":{"kind":"rate_limit","times":1,"retry_after":2}}`), 0o644)
	sc, err := Load(good)
	if err != nil || sc.Fault.RetryAfter != 2 || sc.Turns[0].ToolCalls[0].Name != "Bash" {
		t.Fatalf("%+v %v", sc, err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"fault":{"kind":"teapot"}}`), 0o644)
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), "teapot") {
		t.Fatalf("bad fault kind: %v", err)
	}
}

// Repeat answers past the last turn with the last turn again (a model
// asking for tools for ever); without it, a closing text turn.
func TestRepeatLastTurn(t *testing.T) {
	sc := &Scenario{Turns: twoTurns.Turns[:1], Repeat: true}
	if got := sc.turn(5); len(got.ToolCalls) != 1 || got.Text != "Writing it." {
		t.Fatalf("turn past the end with repeat: %+v", got)
	}
	sc.Repeat = false
	if got := sc.turn(5); len(got.ToolCalls) != 0 || got.Text != "Done." {
		t.Fatalf("turn past the end: %+v", got)
	}
}
