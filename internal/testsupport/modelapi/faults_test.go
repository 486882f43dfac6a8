package modelapi

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// The faults past the shared status ones, on each wire: the status and
// the provider's words, a proxy's HTML, a connection closed unanswered,
// a redirect to a sign-in page.
func TestExtraFaults(t *testing.T) {
	paths := map[string]string{
		"anthropic": "/v1/messages", "responses": "/v1/responses", "chat": "/v1/chat/completions",
		"gemini": "/v1beta/models/gemini-x:streamGenerateContent",
	}
	body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}],"input":"go","contents":[{"role":"user","parts":[{"text":"go"}]}]}`
	for _, tc := range []struct {
		kind, wire string
		status     int
		has        string
	}{
		{FaultBilling, "anthropic", 400, "credit balance is too low"},
		{FaultBilling, "responses", 429, `"insufficient_quota"`},
		{FaultBilling, "chat", 429, "check your plan and billing details"},
		{FaultBilling, "gemini", 400, "FAILED_PRECONDITION"},
		{FaultModel, "anthropic", 404, `"not_found_error"`},
		{FaultModel, "responses", 404, `"model_not_found"`},
		{FaultModel, "gemini", 404, "models/gemini-x is not found"},
		{FaultBadGateway, "chat", 502, "<title>502 Bad Gateway</title>"},
		{FaultRedirect, "anthropic", 200, "Sign in to the network"},
	} {
		t.Run(tc.kind+"/"+tc.wire, func(t *testing.T) {
			_, url := start(t, &Scenario{Turns: twoTurns.Turns, Fault: &Fault{Kind: tc.kind}})
			resp, err := http.Post(url+paths[tc.wire], "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status || !strings.Contains(string(got), tc.has) {
				t.Fatalf("%d %s, want %d with %q", resp.StatusCode, got, tc.status, tc.has)
			}
		})
	}
	_, url := start(t, &Scenario{Turns: twoTurns.Turns, Fault: &Fault{Kind: FaultReset, Times: 1}})
	if resp, err := http.Post(url+paths["anthropic"], "application/json", strings.NewReader(body)); err == nil {
		resp.Body.Close()
		t.Fatalf("reset: answered %d", resp.StatusCode)
	}
	resp, err := http.Post(url+paths["anthropic"], "application/json", strings.NewReader(body))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("after the reset: %v %v", resp, err)
	}
	resp.Body.Close()
}
