package recorder

import (
	"testing"

	"github.com/loopkit/loopkit/internal/record"
)

// The iteration's agent object names the step's failure and session, so a
// person can go from an iteration to `claude --resume <id>`.
func TestAgentCarriesStepFailure(t *testing.T) {
	in, err := record.DecodeInput([]byte(`{"type":"validation","command":"make test","exit_code":1,"stdout":""}` + "\n" +
		`{"type":"step","command":"claude -p","phase":"implementation","exit_code":1,"session_id":"s-42","error":"Not logged in · Please run /login","error_kind":"authentication","rate_limited":true}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	it := newRecorder(t).build("run1", 1, in, 1)
	a := it.Agent
	if a == nil || a.SessionID == nil || *a.SessionID != "s-42" || a.Error == nil || *a.Error != "Not logged in · Please run /login" ||
		a.ErrorKind == nil || *a.ErrorKind != record.ErrorKindAuthentication || !a.RateLimited {
		t.Fatalf("agent %+v", a)
	}
}

// Where the step's cost came from reaches the stored iteration and attempt
// (loop-step said "reported"; the iteration used to say nothing).
func TestCostSourceStored(t *testing.T) {
	in, err := record.DecodeInput([]byte(`{"type":"validation","command":"make test","exit_code":0,"stdout":""}` + "\n" +
		`{"type":"step","command":"claude -p","phase":"implementation","exit_code":0,"cost_usd":0.5,"cost_source":"estimated"}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	it := newRecorder(t).build("run1", 1, in, 1)
	if it.CostSource == nil || *it.CostSource != "estimated" {
		t.Fatalf("iteration cost_source %v", it.CostSource)
	}
	a := attemptOf("run1", 1, "", in.Step, 1)
	if a.CostSource == nil || *a.CostSource != "estimated" {
		t.Fatalf("attempt cost_source %v", a.CostSource)
	}
}

// A rate-limited attempt keeps the reset the agent gave: the matrix's real
// Claude 429 (retry_delay_ms) reached the RATE_LIMITED event but not the
// attempt, which had rate_limited and no time.
func TestAttemptKeepsRateLimitReset(t *testing.T) {
	in, err := record.DecodeInput([]byte(`{"type":"step","command":"claude -p","phase":"implementation","exit_code":-1,"error_kind":"rate_limit","rate_limited":true,"rate_limit_resets_at":1795671313853}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	a := attemptOf("run1", 1, record.AttemptRateLimited, in.Step, 1)
	if a.Agent == nil || a.Agent.RateLimitResetsAt == nil || *a.Agent.RateLimitResetsAt != 1795671313853 {
		t.Fatalf("attempt agent %+v", a.Agent)
	}
}

// A step stopped after its result keeps saying so in the stored record,
// so the views do not show it as a failure.
func TestAgentKeepsKilledAfterResult(t *testing.T) {
	if !agentOf(&record.Step{KilledAfterResult: true}).KilledAfterResult {
		t.Fatal("killed_after_result lost")
	}
}

// The calls past --max-tool-calls stay counted in the stored iteration and
// attempt: a real Codex run of 1403 calls was stored as 1000 calls and
// nothing to say more were made.
func TestAgentKeepsDroppedCalls(t *testing.T) {
	in, err := record.DecodeInput([]byte(`{"type":"validation","command":"make test","exit_code":1,"stdout":""}` + "\n" +
		`{"type":"step","command":"codex exec","phase":"implementation","exit_code":0,"tool_calls":[],"tool_calls_dropped":403}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if it := newRecorder(t).build("run1", 1, in, 1); it.Agent == nil || it.Agent.ToolCallsDropped != 403 {
		t.Fatalf("iteration agent %+v", it.Agent)
	}
	if a := attemptOf("run1", 1, "", in.Step, 1); a.Agent == nil || a.Agent.ToolCallsDropped != 403 {
		t.Fatalf("attempt agent %+v", a.Agent)
	}
}
