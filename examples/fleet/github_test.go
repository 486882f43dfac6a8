package fleet

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"sigs.k8s.io/yaml"
)

// workflow is what of github/loop-fleet.yml this test reads.
type workflow struct {
	Jobs map[string]struct {
		Steps []struct {
			ID  string `json:"id"`
			Run string `json:"run"`
		} `json:"steps"`
	} `json:"jobs"`
}

// TestWorkflowCancelReachesTheDriver runs the workflow's loop step as
// GitHub's runner does (bash -eo pipefail) and cancels it as the runner
// does: SIGINT to the step's shell alone. The driver must hear of it, stop
// the agent and record the run canceled, and the step's output must carry
// its status; before, the shell waited on, and the runner's SIGTERM then
// left the driver orphaned, spending, past the job.
func TestWorkflowCancelReachesTheDriver(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the driver")
	}
	for _, tool := range []string{"bash", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not on PATH", tool)
		}
	}
	data, err := os.ReadFile("github/loop-fleet.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	script := ""
	for _, s := range wf.Jobs["loop"].Steps {
		if s.ID == "loop" {
			script = s.Run
		}
	}
	if script == "" || strings.Contains(script, "${{") {
		t.Fatalf("the loop step's script: %q", script)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	bin, shims, ws := filepath.Join(tmp, "bin"), filepath.Join(tmp, "shims"), filepath.Join(tmp, "ws")
	buildCommands(t, root, bin)
	mark := filepath.Join(tmp, "agent-started")
	shimsText := map[string]string{
		"loop": "#!/bin/sh\nexec " + filepath.Join(root, "scripts/loop") + " \"$@\"\n",
		// an agent that works until it is stopped
		"claude": stubbornAgent(mark),
	}
	for _, d := range []string{shims, filepath.Join(ws, "tasks")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range shimsText {
		if err := os.WriteFile(filepath.Join(shims, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "tasks", "t.md"), []byte("Do it.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@loopkit.invalid", "commit", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", ws}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	output := filepath.Join(tmp, "github-output")
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "PATH="+shims+string(os.PathListSeparator)+os.Getenv("PATH"),
		"LOOP_BIN="+bin, "LOOP_STORE="+filepath.Join(ws, ".loop"), "XDG_RUNTIME_DIR="+filepath.Join(tmp, "run"),
		"XDG_STATE_HOME="+filepath.Join(tmp, "state"), "TASK=t", "MAX_ITERATIONS=2", "MAX_COST=1",
		"GITHUB_OUTPUT="+output, "CI=true", "GITHUB_ACTIONS=true", "NO_COLOR=1")
	log := stopShell(t, cmd, mark, syscall.SIGINT) // the step's shell alone, as the runner does
	out, _ := os.ReadFile(output)
	if got := strings.TrimSpace(string(out)); got != "exit=143" {
		t.Errorf("GITHUB_OUTPUT: %q, want exit=143 (the driver canceled by SIGTERM)\n%s", got, log)
	}
	wantCanceled(t, filepath.Join(ws, ".loop"))
}
