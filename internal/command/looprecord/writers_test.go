package looprecord

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	rec "github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/recorder"
	"github.com/loopkit/loopkit/internal/store"
)

// input makes a validation record whose stdout is spooled in the store, so
// the link-before-commit path is exercised.
func input(t *testing.T, st *store.Store, tag string, exit int) ([]byte, string) {
	t.Helper()
	content := fmt.Sprintf("output of %s\n%s", tag, strings.Repeat("x", len(tag)*10))
	path := filepath.Join(st.SpoolDir(), tag+".validate.stdout")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	v := rec.Validation{Type: "validation", Command: "test " + tag, ExitCode: &exit, Stdout: content, StdoutFile: &path, FilesChanged: []string{}}
	line, _ := rec.Marshal(v)
	return append(line, '\n'), content
}

type acked struct {
	log     rec.IterationLog
	content string
}

// checkStore verifies the invariants of a run after any number of crashes:
// every file parseable, iterations 1..N each once, every acknowledged
// record present with its bytes, derived files consistent with the log.
func checkStore(t *testing.T, st *store.Store, id string, acks []acked) {
	t.Helper()
	seen := map[int]rec.IterationLog{}
	digests := map[string]int{}
	n := 0
	err := store.ScanFile(st.RunPath(id, store.IterationsFile), func(lineNo int, line []byte) error {
		var it rec.IterationLog
		if err := json.Unmarshal(line, &it); err != nil {
			return fmt.Errorf("line %d: %v", lineNo, err)
		}
		n++
		if it.Iteration != n {
			return fmt.Errorf("line %d holds iteration %d", lineNo, it.Iteration)
		}
		if prev, dup := digests[it.InputDigest]; dup {
			return fmt.Errorf("input recorded twice: iterations %d and %d", prev, it.Iteration)
		}
		digests[it.InputDigest] = it.Iteration
		seen[it.Iteration] = it
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range acks {
		got, ok := seen[a.log.Iteration]
		if !ok || got.InputDigest != a.log.InputDigest || got.ID != a.log.ID {
			t.Fatalf("acknowledged iteration %d missing or different", a.log.Iteration)
		}
		data, err := os.ReadFile(filepath.Join(st.IterationDir(id, a.log.Iteration), recorder.ValidationStdout))
		if err != nil || string(data) != a.content {
			t.Fatalf("iteration %d: stdout in folder differs (%v)", a.log.Iteration, err)
		}
	}
	run, err := st.ReadRun(id)
	if err != nil {
		t.Fatal(err)
	}
	if run.Iteration != n || run.Passed+run.Failed != n {
		t.Fatalf("run.json says %d iterations (%d passed, %d failed), log has %d", run.Iteration, run.Passed, run.Failed, n)
	}
	events := map[int]int{}
	store.ScanFile(st.RunPath(id, store.EventsFile), func(_ int, line []byte) error {
		var e rec.Event
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("events.jsonl: %v", err)
		}
		if e.Type == rec.EventIterationRecorded {
			events[*e.Iteration]++
		}
		return nil
	})
	rows := map[int]int{}
	store.ScanFile(st.RunPath(id, store.ReportFile), func(_ int, line []byte) error {
		f := strings.Split(string(line), "\t")
		if len(f) != 11 {
			t.Fatalf("report.tsv row with %d columns", len(f))
		}
		if f[1] == "ITERATION" {
			k, _ := strconv.Atoi(f[2])
			rows[k]++
		}
		return nil
	})
	for i := 1; i <= n; i++ {
		if events[i] != 1 || rows[i] != 1 {
			t.Fatalf("iteration %d: %d events, %d report rows", i, events[i], rows[i])
		}
	}
	dirs, _ := os.ReadDir(st.RunPath(id, store.IterationsDir))
	for _, d := range dirs {
		if k, err := strconv.Atoi(d.Name()); err != nil || k > n {
			t.Fatalf("leftover in iterations/: %s", d.Name())
		}
	}
}

func newStore(t *testing.T, id string) *store.Store {
	t.Helper()
	st, _ := store.Open(filepath.Join(t.TempDir(), ".loop"))
	if out, err := loopRecord(st.Root, "--new-run", "--run", id).CombinedOutput(); err != nil {
		t.Fatalf("new run: %v: %s", err, out)
	}
	return st
}

func TestConcurrentWriters(t *testing.T) {
	writers, each := 8, 200
	if testing.Short() { // make test; test-long runs 200 each
		each = 10
	}
	st := newStore(t, "conc")
	var mu sync.Mutex
	var acks []acked
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				in, content := input(t, st, fmt.Sprintf("w%d-%d", w, i), i%2)
				cmd := loopRecord(st.Root, "--run", "conc")
				cmd.Stdin = bytes.NewReader(in)
				out, err := cmd.Output()
				if err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
				var it rec.IterationLog
				if err := json.Unmarshal(out, &it); err != nil {
					t.Errorf("writer %d: output %q", w, out)
					return
				}
				mu.Lock()
				acks = append(acks, acked{it, content})
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	if len(acks) != writers*each {
		t.Fatalf("%d acknowledged, want %d", len(acks), writers*each)
	}
	checkStore(t, st, "conc", acks)
	if left, _ := filepath.Glob(filepath.Join(st.SpoolDir(), "*")); len(left) != 0 {
		t.Fatalf("spool not emptied: %d files", len(left))
	}
}

// Writers are killed with SIGKILL at random moments; afterwards one more
// writer repairs the run and every acknowledged record must be there once.
func TestKillWritersAtRandom(t *testing.T) {
	rounds := 40
	if testing.Short() { // make test; make crash runs 200
		rounds = 20
	}
	if s := os.Getenv("LOOPKIT_CRASH_ROUNDS"); s != "" {
		rounds, _ = strconv.Atoi(s)
	}
	st := newStore(t, "crash")
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	var acks []acked
	killed := 0
	for r := 0; r < rounds; r++ {
		var wg sync.WaitGroup
		var mu sync.Mutex
		for w := 0; w < 3; w++ {
			in, content := input(t, st, fmt.Sprintf("r%d-w%d", r, w), w%2)
			delay := time.Duration(rng.Intn(80000)) * time.Microsecond
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := loopRecord(st.Root, "--run", "crash")
				cmd.Stdin = bytes.NewReader(in)
				var out bytes.Buffer
				cmd.Stdout = &out
				if err := cmd.Start(); err != nil {
					t.Error(err)
					return
				}
				timer := time.AfterFunc(delay, func() { cmd.Process.Signal(syscall.SIGKILL) })
				err := cmd.Wait()
				timer.Stop()
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					killed++
					return
				}
				var it rec.IterationLog
				if json.Unmarshal(out.Bytes(), &it) != nil {
					t.Errorf("acknowledged output unparseable: %q", out.Bytes())
					return
				}
				acks = append(acks, acked{it, content})
			}()
		}
		wg.Wait()
	}
	in, content := input(t, st, "final", 0)
	cmd := loopRecord(st.Root, "--run", "crash")
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("final writer: %v", err)
	}
	var it rec.IterationLog
	json.Unmarshal(out, &it)
	acks = append(acks, acked{it, content})
	t.Logf("%d rounds: %d writers killed, %d acknowledged", rounds, killed, len(acks))
	checkStore(t, st, "crash", acks)
	// what stays in spool/ is only the input of writers killed before their
	// commit (it can be recorded again): nothing linked into an iteration
	left, _ := filepath.Glob(filepath.Join(st.SpoolDir(), "*"))
	for _, p := range left {
		fi, err := os.Stat(p)
		if err == nil && fi.Sys().(*syscall.Stat_t).Nlink > 1 {
			t.Fatalf("spool entry of a committed iteration left behind: %s", p)
		}
	}
}
