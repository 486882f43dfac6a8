package artifacts

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
)

// fixture makes a store with run r of n iterations, each with an agent
// output and a validation output, and returns the store and run.
func fixture(t *testing.T, n int, set map[string]string) (*store.Store, *record.Run) {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), ".loop"))
	if err != nil {
		t.Fatal(err)
	}
	run := store.NewRun("r", "r", 1)
	run.Settings = runconfig.MustFromMap(set)
	if err := st.CreateRun(run); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		addIteration(t, st, run, i)
	}
	return st, run
}

func addIteration(t *testing.T, st *store.Store, run *record.Run, i int) {
	t.Helper()
	dir, err := st.MkdirRun("r", store.IterationsDir, fmt.Sprintf("%03d", i))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for l := 1; l <= 60; l++ {
		fmt.Fprintf(&out, "agent %d line %d\n", i, l)
	}
	files := map[string]string{
		store.AgentStdout: out.String(), store.AgentStderr: "",
		store.ValidationStdout: fmt.Sprintf("validation %d\n", i), store.PromptFile: fmt.Sprintf("prompt %d\n", i),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	it := record.IterationLog{ID: fmt.Sprintf("r-iter-%d", i), RunID: "r", Iteration: i, Status: record.StatusFail, ExitCode: 1,
		Agent: &record.Agent{Phase: "implementation", StepID: record.StepID("r", i)}}
	line, _ := record.Marshal(&it)
	if err := store.AppendLine(st.RunPath("r", store.IterationsFile), line); err != nil {
		t.Fatal(err)
	}
	run.Iteration = i
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestLogDirLayout(t *testing.T) {
	logs := filepath.Join(t.TempDir(), "logs")
	st, run := fixture(t, 2, map[string]string{KeyLogDir: logs})
	if err := Write(st, run); err != nil {
		t.Fatal(err)
	}
	d := filepath.Join(logs, "run-r")
	if got := read(t, filepath.Join(d, "prompt.txt")); got != "prompt 1\n" {
		t.Errorf("prompt.txt = %q, want the first prompt", got)
	}
	log2 := read(t, filepath.Join(d, "iter-02.log"))
	if !strings.HasPrefix(log2, "agent 2 line 1\n") || !strings.HasSuffix(log2, "agent 2 line 60\n") {
		t.Errorf("iter-02.log is not the agent's output: %q...", log2[:40])
	}
	tail := read(t, filepath.Join(d, "iter-02.tail.txt"))
	if n := strings.Count(tail, "\n"); n != TailLines || !strings.HasPrefix(tail, "agent 2 line 11\n") {
		t.Errorf("iter-02.tail.txt has %d lines from %q, want the last %d", n, tail[:20], TailLines)
	}
	if s := read(t, filepath.Join(d, "summary.json")); !strings.Contains(s, `"iterations": 2`) {
		t.Errorf("summary.json = %s", s)
	}
}

// A link the agent planted where a copy's directory or file goes is never
// written through: the run directory as a link is refused, a file as a
// link is replaced.
func TestCopiesFollowNoLink(t *testing.T) {
	tmp := t.TempDir()
	outside := filepath.Join(tmp, "outside")
	os.MkdirAll(outside, 0o700)
	secret := filepath.Join(outside, "secret")
	os.WriteFile(secret, []byte("keep"), 0o600)

	logs := filepath.Join(tmp, "logs")
	os.MkdirAll(logs, 0o700)
	os.Symlink(outside, filepath.Join(logs, "run-r"))
	st, run := fixture(t, 1, map[string]string{KeyLogDir: logs})
	if err := Write(st, run); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("a run directory that is a link: err = %v, want refused", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		t.Fatalf("written through the link: %v", ents)
	}

	os.Remove(filepath.Join(logs, "run-r"))
	os.MkdirAll(filepath.Join(logs, "run-r"), 0o700)
	os.Symlink(secret, filepath.Join(logs, "run-r", "summary.json"))
	os.Symlink(secret, filepath.Join(logs, "run-r", "report.tsv"))
	if err := Write(st, run); err != nil {
		t.Fatal(err)
	}
	if got := read(t, secret); got != "keep" {
		t.Fatalf("the link's target was written: %q", got)
	}
	if fi, _ := os.Lstat(filepath.Join(logs, "run-r", "summary.json")); !fi.Mode().IsRegular() {
		t.Fatalf("summary.json is still a link")
	}
}

// A link planted where an appended copy goes (combined.log, report.tsv)
// is replaced, as one where a written copy goes is: it never stops the
// copies, nor is it written through.
func TestAppendedCopyLinkReplaced(t *testing.T) {
	tmp := t.TempDir()
	secret := filepath.Join(tmp, "secret")
	os.WriteFile(secret, []byte("keep"), 0o600)
	arts, logs := filepath.Join(tmp, "arts"), filepath.Join(tmp, "logs")
	st, run := fixture(t, 1, map[string]string{KeyArtifactDir: arts, KeyLogDir: logs})
	if err := Write(st, run); err != nil {
		t.Fatal(err)
	}
	links := []string{filepath.Join(arts, "runs", "r", "logs", "combined.log"), filepath.Join(logs, "run-r", "report.tsv")}
	for _, l := range links {
		os.Remove(l)
		if err := os.Symlink(secret, l); err != nil {
			t.Fatal(err)
		}
	}
	addIteration(t, st, run, 2)
	if err := Write(st, run); err != nil {
		t.Fatalf("a link where an appended copy goes stopped the copies: %v", err)
	}
	if got := read(t, secret); got != "keep" {
		t.Fatalf("the link's target was written: %q", got)
	}
	for _, l := range links {
		if fi, err := os.Lstat(l); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s is not a regular file again: %v", l, err)
		}
	}
	if c := read(t, links[0]); !strings.Contains(c, "=== iteration 1:") || !strings.Contains(c, "=== iteration 2:") {
		t.Errorf("combined.log after the link is not every iteration:\n%s", c)
	}
}

// The final verification's commands are verification logs too: each is a
// block of combined.log after the iteration it verified, once, and in that
// place when the log is written again from the start.
func TestCombinedLogFinalVerification(t *testing.T) {
	arts := filepath.Join(t.TempDir(), "arts")
	st, run := fixture(t, 1, map[string]string{KeyArtifactDir: arts})
	if _, err := st.MkdirRun("r", store.VerifyDir); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(st.RunPath("r", store.VerifyDir), "001.stdout"), []byte("lint says no\n"), 0o600)
	line, _ := record.Marshal(&record.Verification{ID: "r-verify-1", RunID: "r", Verification: 1, Iteration: 1, Command: "make lint", Status: record.StatusFail, ExitCode: 1})
	if err := store.AppendLine(st.RunPath("r", store.VerifyFile), line); err != nil {
		t.Fatal(err)
	}
	if err := Write(st, run); err != nil {
		t.Fatal(err)
	}
	addIteration(t, st, run, 2)
	if err := Write(st, run); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(arts, "runs", "r", "logs", "combined.log")
	want := regexp.MustCompile(`(?s)^=== iteration 1: implementation ===.*=== iteration 1: validation \(exit 1\) ===\nvalidation 1\n\n` +
		"=== iteration 1: final verification \\(exit 1\\): make lint ===\nlint says no\n\n" +
		`=== iteration 2: implementation ===.*=== iteration 2: validation \(exit 1\) ===\nvalidation 2\n\n$`)
	got := read(t, path)
	if !want.MatchString(got) {
		t.Fatalf("combined.log:\n%s", got)
	}
	os.Remove(path)
	if err := Write(st, run); err != nil {
		t.Fatal(err)
	}
	if again := read(t, path); again != got {
		t.Fatalf("combined.log written again from the start:\n%s\nwant:\n%s", again, got)
	}
}

// combined.log grows by the new iterations only; an append cut short by a
// kill (past the length its state says) is cut off and written again.
func TestCombinedLogAfterKill(t *testing.T) {
	arts := filepath.Join(t.TempDir(), "arts")
	st, run := fixture(t, 1, map[string]string{KeyArtifactDir: arts})
	if err := Write(st, run); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(arts, "runs", "r", "logs", "combined.log")
	one := read(t, path)
	// a writer killed while appending iteration 2 left half a block
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("=== iteration 2: implementation ===\nagent 2 li")
	f.Close()
	addIteration(t, st, run, 2)
	if err := Write(st, run); err != nil {
		t.Fatal(err)
	}
	both := read(t, path)
	if !strings.HasPrefix(both, one) || strings.Count(both, "=== iteration 2: implementation ===") != 1 {
		t.Fatalf("combined.log after the kill:\n%s", both)
	}
	for _, want := range []string{"=== iteration 1: validation (exit 1) ===\nvalidation 1\n", "agent 2 line 60\n"} {
		if !strings.Contains(both, want) {
			t.Errorf("combined.log lacks %q", want)
		}
	}
	for i := 1; i <= 2; i++ {
		name := filepath.Join(arts, "runs", "r", "logs", fmt.Sprintf("step-%02d-implementation.log", i))
		if !bytes.HasPrefix([]byte(read(t, name)), fmt.Appendf(nil, "agent %d line 1\n", i)) {
			t.Errorf("%s is not step %d's output", name, i)
		}
	}
}

func TestResolve(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/data")
	set := runconfig.MustFromMap(map[string]string{KeyLogDir: "logs/loop", KeyArtifactMode: Mirror, KeyArtifactDir: "/abs"})
	Resolve(&set, "/ws")
	want := map[string]string{KeyLogDir: "/ws/logs/loop", KeyArtifactMode: Mirror, KeyArtifactDir: "/abs", KeyGlobalLogDir: "/data/loopkit/runs"}
	for k, v := range want {
		if got := set.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
}

// A run the store deleted takes its copies with it: log_dir, the mirror
// and the artifact directory, and those a pipeline's run was sent to by
// its recorder's environment (recorded in copies.json, not in its
// settings); a link inside them is removed as a link, its target kept.
func TestRemoveFollowsStore(t *testing.T) {
	tmp := t.TempDir()
	logs, arts, mirror := filepath.Join(tmp, "logs"), filepath.Join(tmp, "arts"), filepath.Join(tmp, "mirror")
	st, run := fixture(t, 1, map[string]string{KeyLogDir: logs, KeyArtifactDir: arts, KeyArtifactMode: Mirror, KeyGlobalLogDir: mirror})
	if err := Write(st, run); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(tmp, "keep")
	os.WriteFile(keep, []byte("x"), 0o600)
	os.Symlink(keep, filepath.Join(logs, "run-r", "link"))
	other := filepath.Join(logs, "run-other")
	os.MkdirAll(other, 0o700)
	// as a pipeline's run: the settings name no copy, copies.json does
	pipeline := *run
	pipeline.Settings = runconfig.MustFromMap(nil)
	ds := Locations(st, &pipeline)
	if err := Remove(run.RunID, ds); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{filepath.Join(logs, "run-r"), filepath.Join(arts, "runs", "r"), filepath.Join(mirror, "run-r")} {
		if _, err := os.Lstat(gone); !os.IsNotExist(err) {
			t.Errorf("%s still there (%v)", gone, err)
		}
	}
	for _, kept := range []string{keep, other} {
		if _, err := os.Lstat(kept); err != nil {
			t.Errorf("%s removed: %v", kept, err)
		}
	}
	// a directory not named as a copy of the run is never removed
	if err := Remove(run.RunID, []string{tmp, other, filepath.Join(tmp, "runs")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(other); err != nil {
		t.Errorf("%s removed: %v", other, err)
	}
}

// Two copies that cannot be written are one error of one line (the
// recorder's warning printed errors.Join's newline as a literal \n), each
// still found by errors.Is.
func TestCopyErrorsOneLine(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	st, run := fixture(t, 1, map[string]string{KeyLogDir: filepath.Join(file, "logs"), KeyArtifactDir: filepath.Join(file, "art")})
	err := Write(st, run)
	if err == nil {
		t.Fatal("copies under a regular file written")
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "log_dir") || !strings.Contains(msg, "artifact_dir") {
		t.Errorf("error %q: want one line naming both copies", msg)
	}
	if !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("error %v: errors.Is(ENOTDIR) is false", err)
	}
}
