package loopkit_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopkit/loopkit/pkg/loopkit"
)

// fixture copies testdata/store to a fresh .loop and opens it.
func fixture(t *testing.T) (*loopkit.Store, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".loop")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(pkgDir, "testdata", "store"))); err != nil {
		t.Fatal(err)
	}
	st, err := loopkit.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	st.PollInterval = 5 * time.Millisecond
	return st, dir
}

// The package reads the store and never writes it: the writer, its locks
// and repairs stay out of what a program linking it can do.
func TestNeverImportsTheWriter(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", ".")
	cmd.Dir = pkgDir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "github.com/loopkit/loopkit/internal/recorder" ||
			strings.HasPrefix(p, "github.com/loopkit/loopkit/internal/command/") {
			t.Errorf("pkg/loopkit depends on %s: only the store's reader and records belong here", p)
		}
	}
}

func TestOpenCreatesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".loop")
	if _, err := loopkit.Open(dir); err == nil {
		t.Fatal("Open of a missing store succeeded")
	}
	if _, err := os.Lstat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Open created %s", dir)
	}
}

// The workspace given for its store (the .loop inside it) is an error
// naming the store, not a store with no runs; a store with no run yet is
// an empty one.
func TestOpenWorkspaceNamesTheStore(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".loop", "runs"), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := loopkit.Open(ws)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(ws, ".loop")) {
		t.Fatalf("Open of a workspace: err = %v, want one naming its store", err)
	}
	empty := filepath.Join(t.TempDir(), ".loop")
	os.Mkdir(empty, 0o700)
	st, err := loopkit.Open(empty)
	if err != nil {
		t.Fatalf("Open of a store with no run yet: %v", err)
	}
	if runs, err := st.Runs(); err != nil || len(runs) != 0 {
		t.Fatalf("Runs of a store with no run yet = %v, %v", runs, err)
	}
}

func TestNoSuchRun(t *testing.T) {
	st, _ := fixture(t)
	for _, id := range []string{"nope", "../runs"} {
		if _, err := st.Iterations(id); err == nil {
			t.Errorf("Iterations(%q) succeeded", id)
		}
	}
	if _, err := st.Iterations("nope"); !errors.Is(err, loopkit.ErrNoSuchRun) {
		t.Errorf("Iterations of a missing run: %v, want ErrNoSuchRun", err)
	} else if !strings.Contains(err.Error(), "nope") || !strings.Contains(err.Error(), st.Root()) {
		t.Errorf("Iterations of a missing run: %q names not the run and its store %s", err, st.Root())
	}
	err := st.Follow(context.Background(), "nope", func(loopkit.IterationLog) error { return nil })
	if !errors.Is(err, loopkit.ErrNoSuchRun) {
		t.Errorf("Follow of a missing run: %v, want ErrNoSuchRun", err)
	}
}

// Iterations passes on only committed lines: not a line being written (no
// newline yet), nor one out of sequence.
func TestIterationsOnlyCommits(t *testing.T) {
	st, dir := fixture(t)
	path := filepath.Join(dir, "runs", "fix-parser", "iterations.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first := strings.SplitAfter(string(data), "\n")[0]
	bad := strings.Replace(first, `"iteration":1`, `"iteration":7`, 1)
	torn := strings.TrimSuffix(first, "\n")
	for _, tail := range []string{bad, torn} {
		if err := os.WriteFile(path, []byte(string(data)+tail), 0o600); err != nil {
			t.Fatal(err)
		}
		its, err := st.Iterations("fix-parser")
		if err != nil || len(its) != 2 {
			t.Errorf("with %q appended: %d iterations, %v; want the 2 committed", tail[:30], len(its), err)
		}
	}
}

// Follow passes on an iteration committed while it waits, and returns once
// the run has ended; a canceled context and fn's error stop it too.
func TestFollowLive(t *testing.T) {
	st, dir := fixture(t)
	run := filepath.Join(dir, "runs", "add-docs")
	line, err := os.ReadFile(filepath.Join(run, "iterations.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan int, 4)
	done := make(chan error, 1)
	go func() {
		done <- st.Follow(context.Background(), "add-docs", func(it loopkit.IterationLog) error {
			got <- it.Iteration
			return nil
		})
	}()
	if n := <-got; n != 1 {
		t.Fatalf("first iteration followed: %d", n)
	}
	// a writer commits iteration 2, then ends the run
	second := strings.Replace(string(line), `"iteration":1`, `"iteration":2`, 1)
	f, err := os.OpenFile(filepath.Join(run, "iterations.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(second); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if n := <-got; n != 2 {
		t.Fatalf("second iteration followed: %d", n)
	}
	setStatus(t, filepath.Join(run, "run.json"), "completed")
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Follow of an ended run: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Follow did not return once the run ended")
	}

	ctx, cancel := context.WithCancel(context.Background())
	setStatus(t, filepath.Join(run, "run.json"), "running")
	n := 0
	err = st.Follow(ctx, "add-docs", func(loopkit.IterationLog) error {
		if n++; n == 2 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Follow after cancel: %v", err)
	}
	stop := errors.New("enough")
	err = st.Follow(context.Background(), "add-docs", func(loopkit.IterationLog) error { return stop })
	if !errors.Is(err, stop) {
		t.Errorf("Follow with fn failing: %v", err)
	}
}

func setStatus(t *testing.T, path, status string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for _, old := range []string{`"status": "running"`, `"status": "completed"`} {
		s = strings.Replace(s, old, `"status": "`+status+`"`, 1)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// A driven run marked running with no driver holding it is interrupted;
// one whose driver holds its lock, or one of pipeline commands, is not.
func TestInterrupted(t *testing.T) {
	st, dir := fixture(t)
	run := filepath.Join(dir, "runs", "add-docs")
	if got, err := st.Interrupted("add-docs"); err != nil || got {
		t.Fatalf("a pipeline run: Interrupted = %v, %v; want false", got, err)
	}
	data, err := os.ReadFile(filepath.Join(run, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	driven := strings.Replace(string(data), `"settings": {}`, `"settings": {"agent": ["claude", "-p"]}`, 1)
	if driven == string(data) {
		t.Fatal(`the fixture's run.json has no empty settings to fill`)
	}
	if err := os.WriteFile(filepath.Join(run, "run.json"), []byte(driven), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Interrupted("add-docs"); err != nil || !got {
		t.Fatalf("a driven run with no driver: Interrupted = %v, %v; want true", got, err)
	}
	lock, err := os.OpenFile(filepath.Join(run, "driver.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Interrupted("add-docs"); err != nil || got {
		t.Fatalf("a run its driver holds: Interrupted = %v, %v; want false", got, err)
	}
}
