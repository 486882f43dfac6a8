package fleet

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/loopkit/loopkit/internal/exitcode"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestJobScriptRunsTheTask runs the Job's loop container script as a pod
// would, on this machine: the tasks ConfigMap written out as files, the
// demo workspace as the clone, the driver as `loop` and the demo agent as
// `claude`. Index 0 completes (exit 0, the run named for its task); index 1,
// whose validation never passes, is stuck (exit 1) and an index past the
// list exits 2: the podFailurePolicy fails both at once.
func TestJobScriptRunsTheTask(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo loop")
	}
	for _, tool := range []string{"bash", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not on PATH", tool)
		}
	}
	job, tasks := loadJob(t)
	var loop corev1.Container
	for _, c := range job.Spec.Template.Spec.Containers {
		if c.Name == "loop" {
			loop = c
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	bin, shims, taskDir, ws := filepath.Join(tmp, "bin"), filepath.Join(tmp, "shims"), filepath.Join(tmp, "tasks"), filepath.Join(tmp, "src")
	buildCommands(t, root, bin)
	for _, d := range []string{shims, taskDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range tasks.Data {
		if err := os.WriteFile(filepath.Join(taskDir, k), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The image's `loop` is the driver; the agent is the demo's stand-in.
	for name, target := range map[string]string{"loop": "scripts/loop", "claude": "scripts/demo-agent"} {
		shim := "#!/bin/sh\nexec " + filepath.Join(root, target) + " \"$@\"\n"
		if err := os.WriteFile(filepath.Join(shims, name), []byte(shim), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"cp", "-R", filepath.Join(root, "testdata", "demo") + "/.", ws},
		{"git", "-C", ws, "init", "-q"},
		{"git", "-C", ws, "add", "-A"},
		{"git", "-C", ws, "-c", "user.name=t", "-c", "user.email=t@loopkit.invalid", "commit", "-qm", "init"},
	} {
		if err := os.MkdirAll(ws, 0o755); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	script := strings.ReplaceAll(loop.Args[0], "/tasks/", taskDir+"/")
	store := filepath.Join(tmp, "store")
	run := func(index string, env ...string) (int, string) {
		cmd := exec.Command("bash", "-c", script)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "PATH="+shims+string(os.PathListSeparator)+os.Getenv("PATH"),
			"LOOP_BIN="+bin, "LOOP_STORE="+store, "VALIDATE=sh "+filepath.Join(root, "testdata/loop/check.sh"),
			"JOB_COMPLETION_INDEX="+index, "XDG_RUNTIME_DIR="+filepath.Join(tmp, "run"), "NO_COLOR=1")
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), string(out)
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	if code, out := run("0"); code != 0 || !strings.Contains(out, "completed") {
		t.Fatalf("index 0: exit %d\n%s", code, out)
	}
	first := strings.Fields(tasks.Data["tasks"])[0]
	runs, _ := filepath.Glob(filepath.Join(store, "runs", "*-"+first+"-*"))
	if len(runs) != 1 {
		t.Errorf("want one run named for %s in %s, got %v", first, store, runs)
	}
	// A validation that never passes: the driver's verdict, stuck, is not
	// tried again by the Job.
	code, out := run("1", "VALIDATE=false")
	if code != exitcode.Stuck || !strings.Contains(out, "stuck") {
		t.Errorf("index 1, never valid: exit %d, want %d\n%s", code, exitcode.Stuck, out)
	}
	if a := podFailurePolicy(job.Spec.PodFailurePolicy, "loop", int32(code)); a != batchv1.PodFailurePolicyActionFailIndex {
		t.Errorf("a stuck pod (exit %d) gets %s, want FailIndex", code, a)
	}
	if code, out := run("99"); code != 2 || !strings.Contains(out, "no task for index 99") {
		t.Errorf("index 99: exit %d, want 2\n%s", code, out)
	}
	// The kubelet stops a pod with SIGTERM to the container's first process,
	// the script's shell alone: the driver must hear of it, stop the agent
	// and record the run canceled (before, the driver went on until the
	// SIGKILL after the grace period, the run left interrupted).
	mark := filepath.Join(tmp, "agent-started")
	if err := os.WriteFile(filepath.Join(shims, "claude"), []byte(stubbornAgent(mark)), 0o755); err != nil {
		t.Fatal(err)
	}
	stopped := filepath.Join(tmp, "stopped")
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "PATH="+shims+string(os.PathListSeparator)+os.Getenv("PATH"),
		"LOOP_BIN="+bin, "LOOP_STORE="+stopped, "VALIDATE=true", "JOB_COMPLETION_INDEX=0",
		"XDG_RUNTIME_DIR="+filepath.Join(tmp, "run"), "NO_COLOR=1")
	log := stopShell(t, cmd, mark, syscall.SIGTERM)
	if code := cmd.ProcessState.ExitCode(); code != 143 {
		t.Errorf("stopped pod: exit %d, want 143 (the driver canceled by SIGTERM)\n%s", code, log)
	}
	wantCanceled(t, stopped)
}

// buildCommands builds the loop-* commands of the checkout at root into bin.
func buildCommands(t *testing.T, root, bin string) {
	t.Helper()
	build := exec.Command("go", "build", "-o", bin+"/", "./cmd/loop-validate", "./cmd/loop-record", "./cmd/loop-progress",
		"./cmd/loop-view", "./cmd/loop-clean", "./cmd/loop-step", "./cmd/loop-drive")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
}
