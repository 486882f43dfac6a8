package view

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/testsupport/storetest"
)

// The agent can write run.json: settings it raised there (more
// iterations, another validation) are not the run's, which keeps those
// fixed at start outside the workspace. describe and runs --json show
// the settings in effect, not the forged ones. (They showed the forged
// max_iterations and validate of a stuck run until its next resume.)
func TestViewShowsKeptSettings(t *testing.T) {
	st := storetest.Driven(t, record.RunStuck)
	run, err := st.ReadRun("r")
	if err != nil {
		t.Fatal(err)
	}
	run.Settings.MaxIterations, run.Settings.Validate = 2, "go test ./..."
	if err := runconfig.Keep(st.RunDir("r"), &run.Settings); err != nil {
		t.Fatal(err)
	}
	if err := st.WriteRun(run); err != nil {
		t.Fatal(err)
	}
	// the agent's edit, straight into run.json
	var raw map[string]any
	data, _ := os.ReadFile(st.RunPath("r", "run.json"))
	json.Unmarshal(data, &raw)
	set := raw["settings"].(map[string]any)
	set["max_iterations"], set["validate"] = 50, "true"
	data, _ = json.Marshal(raw)
	if err := os.WriteFile(st.RunPath("r", "run.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	ri, err := LoadRun(st, "r")
	if err != nil {
		t.Fatal(err)
	}
	if s := ri.Run.Settings; s.MaxIterations != 2 || s.Validate != "go test ./..." {
		t.Errorf("run: max_iterations %d, validate %q; want the kept 2, go test ./...", s.MaxIterations, s.Validate)
	}
	var shown struct {
		Settings struct {
			MaxIterations int    `json:"max_iterations"`
			Validate      string `json:"validate"`
		} `json:"settings"`
		Status string `json:"status"`
	}
	if err := json.Unmarshal(ri.JSON(), &shown); err != nil {
		t.Fatal(err)
	}
	if shown.Settings.MaxIterations != 2 || shown.Settings.Validate != "go test ./..." || shown.Status != record.RunStuck {
		t.Errorf("--json shows %+v; want the kept settings", shown)
	}
}

// TestOlderTextSettingsShownTyped: an older loopkit stored settings as
// text ("max_iterations": "6", the agent's words as one JSON text), and
// run.json is never rewritten for a read. --json shows them typed, as
// every newer run has them, so a jq filter such as
// `.settings.max_iterations > 10` means the same for every run; the rest
// of run.json stays as stored, in its order.
func TestOlderTextSettingsShownTyped(t *testing.T) {
	st := storetest.Driven(t, record.RunFailed)
	old := `{"schema_version":1,"run_id":"r","status":"failed","zz_future":[1],` +
		`"settings":{"agent":"[\"claude\",\"-p\"]","max_iterations":"6","timeout":"2m","validate":"go test ./...","watchdog_k":"3"},"iteration":2}`
	if err := os.WriteFile(st.RunPath("r", "run.json"), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	ri, err := LoadRun(st, "r")
	if err != nil {
		t.Fatal(err)
	}
	var shown struct {
		Settings map[string]any `json:"settings"`
	}
	if err := json.Unmarshal(ri.JSON(), &shown); err != nil {
		t.Fatal(err)
	}
	s := shown.Settings
	if s["max_iterations"] != 6.0 || s["watchdog_k"] != 3.0 || s["timeout"] != "2m" || s["validate"] != "go test ./..." {
		t.Errorf("settings shown as %v", s)
	}
	if a, ok := s["agent"].([]any); !ok || len(a) != 2 || a[0] != "claude" {
		t.Errorf("agent shown as %#v", s["agent"])
	}
	if got := string(ri.JSON()); !strings.HasPrefix(got, `{"schema_version":1,"run_id":"r","status":"failed","zz_future":[1],"settings":{`) ||
		!strings.HasSuffix(got, `},"iteration":2}`) {
		t.Errorf("run.json not kept as stored around its settings: %s", got)
	}
}
