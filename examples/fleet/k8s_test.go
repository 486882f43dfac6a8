// Package fleet holds the examples of docs/fleet.md: Kubernetes manifests,
// a GitHub Actions workflow and Collector configurations. Its tests decode
// them strictly into the types their tools use, so a misspelt or misplaced
// field fails here rather than on a cluster.
package fleet

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/exitcode"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// decodeStrict fails on a field the type does not have and on a field given
// twice (sigs.k8s.io/yaml goes YAML → JSON → encoding/json with
// DisallowUnknownFields), as `kubectl apply --validate=strict` would.
func decodeStrict(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestStrictDecodeRejectsUnknownFields(t *testing.T) {
	var job batchv1.Job
	err := yaml.UnmarshalStrict([]byte("apiVersion: batch/v1\nkind: Job\nspec:\n  backoffLimitPerIndx: 2\n"), &job)
	if err == nil || !strings.Contains(err.Error(), "backoffLimitPerIndx") {
		t.Fatalf("a misspelt field was accepted: %v", err)
	}
}

func loadJob(t *testing.T) (*batchv1.Job, *corev1.ConfigMap) {
	var job batchv1.Job
	decodeStrict(t, "k8s/job.yaml", &job)
	var tasks corev1.ConfigMap
	decodeStrict(t, "k8s/tasks.yaml", &tasks)
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || tasks.APIVersion != "v1" || tasks.Kind != "ConfigMap" {
		t.Fatalf("kinds: %s %s, %s %s", job.APIVersion, job.Kind, tasks.APIVersion, tasks.Kind)
	}
	return &job, &tasks
}

func TestJobRunsOneLoopPerTask(t *testing.T) {
	job, tasks := loadJob(t)
	spec := job.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		t.Fatal("completionMode is not Indexed: JOB_COMPLETION_INDEX would not be set")
	}
	names := strings.Fields(tasks.Data["tasks"])
	if spec.Completions == nil || int(*spec.Completions) != len(names) {
		t.Fatalf("completions %v, but loop-tasks lists %d tasks", spec.Completions, len(names))
	}
	for _, n := range names {
		if _, ok := tasks.Data[n+".md"]; !ok {
			t.Errorf("task %s has no %s.md in loop-tasks", n, n)
		}
	}
	if spec.BackoffLimitPerIndex == nil || *spec.BackoffLimitPerIndex < 1 {
		t.Error("backoffLimitPerIndex is not set: a crashed pod would not be tried again per task")
	}
	if spec.ActiveDeadlineSeconds == nil || *spec.ActiveDeadlineSeconds <= 0 {
		t.Error("activeDeadlineSeconds is not set")
	}
	pod := spec.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %q: a podFailurePolicy needs Never", pod.RestartPolicy)
	}
	vol := func(name string) *corev1.Volume {
		for i := range pod.Volumes {
			if pod.Volumes[i].Name == name {
				return &pod.Volumes[i]
			}
		}
		return nil
	}
	if v := vol("tasks"); v == nil || v.ConfigMap == nil || v.ConfigMap.Name != tasks.Name {
		t.Errorf("the tasks volume is not the %s ConfigMap", tasks.Name)
	}
}

// The sidecar must be a native one (it starts before the loop and is
// stopped after it) and read the store the loop writes.
func TestJobExportsWithANativeSidecar(t *testing.T) {
	job, _ := loadJob(t)
	pod := job.Spec.Template.Spec
	var loop, export *corev1.Container
	for i := range pod.Containers {
		if pod.Containers[i].Name == "loop" {
			loop = &pod.Containers[i]
		}
	}
	for i := range pod.InitContainers {
		if c := &pod.InitContainers[i]; slices.Contains(c.Command, "loop-export") {
			export = c
		}
	}
	if loop == nil || export == nil {
		t.Fatal("want a container loop and an init container running loop-export")
	}
	if export.RestartPolicy == nil || *export.RestartPolicy != corev1.ContainerRestartPolicyAlways {
		t.Error("loop-export is not a native sidecar (restartPolicy: Always)")
	}
	if !slices.Contains(export.Command, "--follow") {
		t.Error("loop-export runs without --follow")
	}
	env := func(c *corev1.Container, name string) string {
		for _, e := range c.Env {
			if e.Name == name {
				return e.Value
			}
		}
		return ""
	}
	if env(export, "OTEL_EXPORTER_OTLP_ENDPOINT") == "" {
		t.Error("the exporter has no OTEL_EXPORTER_OTLP_ENDPOINT")
	}
	st := env(loop, "LOOP_STORE")
	if st == "" || env(export, "LOOP_STORE") != st {
		t.Fatalf("LOOP_STORE: loop %q, export %q", st, env(export, "LOOP_STORE"))
	}
	mount := func(c *corev1.Container) string {
		for _, m := range c.VolumeMounts {
			if m.MountPath == st {
				return m.Name
			}
		}
		return ""
	}
	if mount(loop) == "" || mount(loop) != mount(export) {
		t.Errorf("the store %s is not one volume in both containers", st)
	}
	if len(loop.Args) != 1 {
		t.Fatalf("the loop container's script: %q", loop.Args)
	}
	out, err := exec.Command("bash", "-n", "-c", loop.Args[0]).CombinedOutput()
	if err != nil {
		t.Errorf("the loop container's script: %v\n%s", err, out)
	}
}

// podFailurePolicy evaluates the Job's rules the way the Job controller
// does for a pod whose container ended with code: the first rule that
// matches wins; none matching counts against backoffLimitPerIndex.
func podFailurePolicy(p *batchv1.PodFailurePolicy, container string, code int32) batchv1.PodFailurePolicyAction {
	for _, r := range p.Rules {
		req := r.OnExitCodes
		if req == nil || (req.ContainerName != nil && *req.ContainerName != container) {
			continue
		}
		in := slices.Contains(req.Values, code)
		if (req.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn) == in {
			return r.Action
		}
	}
	return batchv1.PodFailurePolicyActionCount
}

func TestJobRetriesCrashesNotVerdicts(t *testing.T) {
	job, _ := loadJob(t)
	p := job.Spec.PodFailurePolicy
	if p == nil {
		t.Fatal("no podFailurePolicy")
	}
	fail, retry := batchv1.PodFailurePolicyActionFailIndex, batchv1.PodFailurePolicyActionCount
	for _, c := range []struct {
		code int32
		want batchv1.PodFailurePolicyAction
		why  string
	}{
		{exitcode.Stuck, fail, "stuck"},
		{exitcode.Usage, fail, "usage"},
		{exitcode.Failed, fail, "failed: the agent cannot run, or over budget"},
		{exitcode.Internal, retry, "internal error"},
		{exitcode.Busy, retry, "busy or paused"},
		{129, retry, "SIGHUP"}, {130, retry, "SIGINT"}, {137, retry, "SIGKILL (OOM)"},
		{141, retry, "SIGPIPE"}, {143, retry, "SIGTERM"},
	} {
		if got := podFailurePolicy(p, "loop", c.code); got != c.want {
			t.Errorf("exit %d (%s): %s, want %s", c.code, c.why, got, c.want)
		}
		// The sidecar's own exit (a SIGTERM when the pod stops) is no verdict.
		if got := podFailurePolicy(p, "export", c.code); got != retry {
			t.Errorf("exit %d of the exporter: %s, want %s", c.code, got, retry)
		}
	}
	var disruption bool
	for _, r := range p.Rules {
		for _, c := range r.OnPodConditions {
			disruption = disruption || (c.Type == corev1.DisruptionTarget && r.Action == batchv1.PodFailurePolicyActionIgnore)
		}
		if r.Action == batchv1.PodFailurePolicyActionFailJob {
			t.Error("a FailJob rule: one task's verdict would stop the other loops")
		}
	}
	if !disruption {
		t.Error("no Ignore rule for DisruptionTarget: an eviction would use up a retry")
	}
}
