package view

import (
	"encoding/json"
	"os"
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
