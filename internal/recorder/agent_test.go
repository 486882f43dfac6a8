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
