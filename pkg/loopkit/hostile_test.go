package loopkit_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/loopkit/loopkit/pkg/loopkit"
)

// A line without its newline, however long (the agent can append to the
// logs under .loop), is no commit and costs no memory: it used to be held
// whole, grown by doubling, on every read and every poll of Follow.
func TestTornTailCostsNoMemory(t *testing.T) {
	st, dir := fixture(t)
	run := filepath.Join(dir, "runs", "fix-parser")
	tail := bytes.Repeat([]byte("x"), 64<<20)
	for _, name := range []string{"iterations.jsonl", "events.jsonl"} {
		f, err := os.OpenFile(filepath.Join(run, name), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(tail); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	tail = nil
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	its, err := st.Iterations("fix-parser")
	if err != nil || len(its) != 2 {
		t.Fatalf("Iterations: %d, %v; want the 2 committed", len(its), err)
	}
	evs, err := st.Events("fix-parser")
	if err != nil || len(evs) != 4 {
		t.Fatalf("Events: %d, %v; want the 4 committed", len(evs), err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := st.Follow(ctx, "fix-parser", func(loopkit.IterationLog) error { return nil }); err != nil {
		t.Fatalf("Follow: %v", err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("reading past two 64 MiB torn lines allocated %d MiB", got>>20)
	}
}

// A run whose run.json cannot be read is left out of Runs, named by a
// *RunError, and the other runs are still listed (loop-view runs lists
// them too): one file the agent spoils does not hide every run.
func TestRunsLeavesOutADamagedRun(t *testing.T) {
	st, dir := fixture(t)
	for _, id := range []string{"damaged", "dir"} {
		if err := os.MkdirAll(filepath.Join(dir, "runs", id), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "runs", "damaged", "run.json"), []byte(`{"run_id": "damaged", `), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "runs", "dir", "run.json"), 0o700); err != nil {
		t.Fatal(err)
	}
	runs, err := st.Runs()
	if len(runs) != 2 || runs[0].RunID != "add-docs" || runs[1].RunID != "fix-parser" {
		t.Errorf("Runs with two damaged runs: %d runs, want add-docs and fix-parser", len(runs))
	}
	var re *loopkit.RunError
	if !errors.As(err, &re) || re.RunID != "damaged" {
		t.Fatalf("Runs' error %v: want a *RunError for run damaged", err)
	}
	for _, id := range []string{"damaged", "dir"} {
		if !bytes.Contains([]byte(err.Error()), []byte(filepath.Join(dir, "runs", id, "run.json"))) {
			t.Errorf("Runs' error %q does not name %s's run.json", err, id)
		}
	}
}

// A Store that Open did not return, zero or nil, is an error to use, not
// a nil dereference.
func TestZeroStore(t *testing.T) {
	for _, st := range []*loopkit.Store{nil, {}, {PollInterval: time.Second}} {
		if _, err := st.Runs(); err == nil || !bytes.Contains([]byte(err.Error()), []byte("loopkit.Open")) {
			t.Errorf("Runs of %#v: %v, want an error saying to use loopkit.Open", st, err)
		}
		for name, call := range map[string]func() error{
			"Run":         func() error { _, err := st.Run("a"); return err },
			"Interrupted": func() error { _, err := st.Interrupted("a"); return err },
			"Iterations":  func() error { _, err := st.Iterations("a"); return err },
			"Events":      func() error { _, err := st.Events("a"); return err },
			"Follow": func() error {
				return st.Follow(context.Background(), "a", func(loopkit.IterationLog) error { return nil })
			},
		} {
			if err := call(); err == nil {
				t.Errorf("%s of %#v succeeded", name, st)
			}
		}
		if st.Root() != "" {
			t.Errorf("Root of %#v: %q", st, st.Root())
		}
	}
}

// One Store serves many goroutines at once (go test -race checks it).
func TestConcurrentReaders(t *testing.T) {
	st, _ := fixture(t)
	done := make(chan error, 8)
	for i := 0; i < cap(done); i++ {
		go func() {
			_, err := st.Runs()
			if err == nil {
				_, err = st.Iterations("fix-parser")
			}
			if err == nil {
				_, err = st.Events("add-docs")
			}
			if err == nil {
				_, err = st.Interrupted("add-docs")
			}
			if err == nil {
				err = st.Follow(context.Background(), "fix-parser", func(loopkit.IterationLog) error { return nil })
			}
			done <- err
		}()
	}
	for i := 0; i < cap(done); i++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// Once ctx is done Follow calls fn no more and returns ctx's error, even
// while it is still passing on iterations committed long ago and the run
// has ended: a cancel must stop a long catch-up, not wait for its end.
func TestFollowStopsAtCancel(t *testing.T) {
	st, _ := fixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	err := st.Follow(ctx, "fix-parser", func(loopkit.IterationLog) error {
		calls++
		cancel()
		return nil
	})
	if calls != 1 || !errors.Is(err, context.Canceled) {
		t.Errorf("Follow canceled in its first call: fn called %d times, returned %v; want once, context.Canceled", calls, err)
	}
	calls = 0
	err = st.Follow(ctx, "fix-parser", func(loopkit.IterationLog) error { calls++; return nil })
	if calls != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("Follow with ctx done before: fn called %d times, returned %v", calls, err)
	}
}

// Reading makes nothing outside the store either: the kept settings and
// the drivers' records are looked up, never their directories made (a
// service reading stores as its own user got ~/.local/state/loopkit/...).
func TestReadingMakesNoDirectory(t *testing.T) {
	home, runtimeDir := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("XDG_RUNTIME_DIR", runtimeDir)
	st, dir := fixture(t)
	// a driven run marked running: Interrupted asks for its driver
	path := filepath.Join(dir, "runs", "add-docs", "run.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte(`"settings": {}`), []byte(`"settings": {"agent": ["claude"]}`), 1)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Runs(); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Interrupted("add-docs"); err != nil || !got {
		t.Fatalf("Interrupted = %v, %v; want true", got, err)
	}
	if _, err := st.Iterations("fix-parser"); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{home, runtimeDir} {
		if ents, _ := os.ReadDir(d); len(ents) > 0 {
			t.Errorf("reading the store made %s in %s", ents[0].Name(), d)
		}
	}
}

// Following a run with nothing new costs little per poll: a dashboard
// follows many runs for hours (each poll took a 256 KiB read buffer).
func TestFollowIdlePollIsCheap(t *testing.T) {
	st, _ := fixture(t)
	st.PollInterval = time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var before, after runtime.MemStats
	done := make(chan error, 1)
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	go func() {
		done <- st.Follow(ctx, "add-docs", func(loopkit.IterationLog) error { return nil })
	}()
	time.Sleep(500 * time.Millisecond)
	cancel()
	<-done
	runtime.ReadMemStats(&after)
	// each poll waits PollInterval at least: this counts too many
	polls := int(time.Since(start) / time.Millisecond)
	per := (after.TotalAlloc - before.TotalAlloc) / uint64(max(polls, 1))
	if per > 64<<10 {
		t.Errorf("an idle poll of Follow allocated %d KiB", per>>10)
	}
}
