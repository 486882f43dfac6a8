package recorder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/wfile"
)

// faultStore is a store in a git work tree whose run r has iteration 1,
// and a func giving the input of iteration n: a step whose stdout is
// copied (its spool file grew past the size the step counted: copyN) and
// whose stderr is hard-linked, a validation with inline output.
func faultStore(t *testing.T) (*Recorder, func(n int) *record.Input) {
	t.Helper()
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "a.txt"), []byte("a\n"), 0o644)
	git(t, work, "init", "-q")
	git(t, work, "add", ".")
	git(t, work, "commit", "-qm", "init")
	st, _ := store.Open(filepath.Join(work, ".loop"))
	if err := st.Init(); err != nil {
		t.Fatal(err)
	}
	r := newRecorder(t)
	r.St, r.Trees, r.Workspace = st, true, work
	val := `{"type":"validation","command":"make test","exit_code":1,"stdout":"FAIL: TestX\n","dir":` + quote(work) + "}\n"
	in, err := record.DecodeInput([]byte(val))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Record("r", in, 1); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(st.SpoolDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	return r, func(n int) *record.Input {
		os.WriteFile(filepath.Join(work, fmt.Sprintf("b%d.txt", n)), []byte("from the agent\n"), 0o644)
		out, errf := st.NewSpool("step")+".out", st.NewSpool("step")+".err"
		os.WriteFile(out, bytes.Repeat([]byte("agent output\n"), 100), 0o600)
		os.WriteFile(errf, []byte("agent stderr\n"), 0o600)
		step, _ := json.Marshal(map[string]any{"type": "step", "command": "agent", "exit_code": 0, "dir": work,
			"stdout_file": out, "stdout_bytes": 13 * 50, "stderr_file": errf, "stderr_bytes": 13, "tool_calls": []any{}})
		// the validation's output spooled as loop-validate leaves it: its
		// copies into the folder are write sites too
		vout, verr := st.NewSpool("validate")+".stdout", st.NewSpool("validate")+".stderr"
		os.WriteFile(vout, bytes.Repeat([]byte("FAIL: TestX\n"), 200), 0o600)
		os.WriteFile(verr, []byte("exit status 1\n"), 0o600)
		spooled, _ := json.Marshal(map[string]any{"type": "validation", "command": "make test", "exit_code": 1, "dir": work,
			"stdout": "FAIL: TestX\n", "stdout_file": vout, "stdout_bytes": 12 * 200, "stderr_file": verr, "stderr_bytes": 14})
		in, err := record.DecodeInput(append(append(step, '\n'), append(spooled, '\n')...))
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
}

// Every write and fsync of recording an iteration fails in turn, with EIO
// and with ENOSPC: the error reaches the caller (an error before the
// commit point, with the log as it was; a warning after it, with the line
// whole), the store stays readable, and the next writer records the
// iteration. Before this, copyN turned a failed copy into a 0-byte
// success (a shadowed err).
func TestRecordWriteFaults(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	for _, errno := range []syscall.Errno{syscall.EIO, syscall.ENOSPC} {
		errno := errno
		r, input := faultStore(t)
		log := r.St.RunPath("r", store.IterationsFile)
		// the write sites of recording an iteration, from one without
		// faults (the trees are taken concurrently: by site, not by count)
		var sites []string
		seen := map[string]bool{}
		var mu sync.Mutex
		restore := wfile.SetFault(func(op wfile.Op, path string) error {
			mu.Lock()
			defer mu.Unlock()
			if k := site(r.St.Root, op, path); !seen[k] {
				seen[k] = true
				sites = append(sites, k)
			}
			return nil
		})
		_, err := r.Record("r", input(2), 2)
		restore()
		if err != nil || len(sites) < 10 {
			t.Fatalf("sites %q, err %v", sites, err)
		}
		t.Logf("%v in turn at %d write sites: %q", errno, len(sites), sites)
		for i, want := range sites {
			it := i + 3 // each site fails in the next iteration
			in := input(it)
			before, _ := os.ReadFile(log)
			failed := ""
			restore := wfile.SetFault(func(op wfile.Op, path string) error {
				mu.Lock()
				defer mu.Unlock()
				if failed == "" && site(r.St.Root, op, path) == want {
					failed = want
					return errno
				}
				return nil
			})
			res, err := r.Record("r", in, it)
			restore()
			if failed == "" {
				t.Fatalf("%s: not reached", want)
			}
			after, _ := os.ReadFile(log)
			switch {
			case err != nil:
				if !errors.Is(err, errno) {
					t.Fatalf("%s failed with %v: the caller got %v", failed, errno, err)
				}
				if !bytes.Equal(before, after) {
					t.Fatalf("%s failed: the log changed:\n%s", failed, after)
				}
			case res.Warning == nil || !errors.Is(res.Warning, errno):
				t.Fatalf("%s failed with %v: recorded without an error or warning (%v)", failed, errno, res.Warning)
			case !bytes.HasPrefix(after, before) || bytes.Count(after, []byte("\n")) != it:
				t.Fatalf("%s failed after the commit point: log\n%s", failed, after)
			}
			if err := store.ScanFile(log, func(_ int, line []byte) error {
				if !json.Valid(line) {
					return fmt.Errorf("bad line %q", line)
				}
				return nil
			}); err != nil {
				t.Fatalf("%s failed: log unreadable: %v", failed, err)
			}
			// the next writer (the driver's retry) stores the iteration whole
			if _, err := r.Record("r", in, it); err != nil {
				t.Fatalf("%s failed; the retry: %v", failed, err)
			}
			run, err := r.St.ReadRun("r")
			if err != nil || run.Iteration != it {
				t.Fatalf("%s failed; after the retry run.json says iteration %v (%v)", failed, run, err)
			}
			stdout, err := os.ReadFile(filepath.Join(r.St.IterationDir("r", it), AgentStdout))
			if err != nil || len(stdout) != 13*50 {
				t.Fatalf("%s failed; after the retry agent stdout holds %d bytes (%v), want %d", failed, len(stdout), err, 13*50)
			}
			vstdout, err := os.ReadFile(filepath.Join(r.St.IterationDir("r", it), ValidationStdout))
			if err != nil || len(vstdout) != 12*200 {
				t.Fatalf("%s failed; after the retry the validation's stdout holds %d bytes (%v), want %d", failed, len(vstdout), err, 12*200)
			}
		}
	}
}

// site names a write site: the op and the path in the store, with the
// numbers and hashes that differ from one iteration to the next as #.
func site(root string, op wfile.Op, path string) string {
	rel, _ := filepath.Rel(root, path)
	return string(op) + " " + digits.ReplaceAllString(rel, "#")
}

var digits = regexp.MustCompile(`objects/[0-9a-f]{2}(/[^/]+)?|[0-9a-f]*[0-9][0-9a-f]*|tmp-[0-9]+|tmp_obj_[0-9]+`)

// A status change whose run.json the disk refuses is not half made: its
// event and report row are cut back off, so events.jsonl never says a run
// paused or failed that run.json (and every driver) still has running,
// and the retry that follows appends its event once.
func TestStatusRunJSONRefusedLeavesNoEvent(t *testing.T) {
	r, _ := faultStore(t)
	notMade := pauseNotMade(t, r)
	restore := wfile.SetFault(func(op wfile.Op, path string) error {
		if op == wfile.Write && strings.Contains(filepath.Base(path), store.RunFile) {
			return syscall.ENOSPC
		}
		return nil
	})
	_, err := r.SetStatus("r", record.RunPaused, "paused by test")
	restore()
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("SetStatus on a refused run.json: %v, want ENOSPC", err)
	}
	notMade()
}

// pauseNotMade returns a check that run r's events.jsonl and report.tsv
// are as they are now (a pause tried since was not made), and that a
// pause then retried logs one RUN_PAUSED.
func pauseNotMade(t *testing.T, r *Recorder) func() {
	events, report := r.St.RunPath("r", store.EventsFile), r.St.RunPath("r", store.ReportFile)
	evBefore, _ := os.ReadFile(events)
	repBefore, _ := os.ReadFile(report)
	return func() {
		t.Helper()
		if ev, _ := os.ReadFile(events); !bytes.Equal(ev, evBefore) {
			t.Errorf("events.jsonl keeps the status that was not made:\n%s", ev[min(len(ev), len(evBefore)):])
		}
		if rep, _ := os.ReadFile(report); !bytes.Equal(rep, repBefore) {
			t.Errorf("report.tsv keeps the status that was not made:\n%s", rep[min(len(rep), len(repBefore)):])
		}
		if _, err := r.SetStatus("r", record.RunPaused, "paused by test"); err != nil {
			t.Fatal(err)
		}
		ev, _ := os.ReadFile(events)
		if n := bytes.Count(ev, []byte(`"RUN_PAUSED"`)); n != 1 {
			t.Errorf("%d RUN_PAUSED events after the retry, want 1", n)
		}
	}
}

// A status change whose run.json is renamed in place but whose directory
// sync fails (the write's last step) is made: every reader sees the new
// status, so its event stays too. Cutting it back left run.json paused
// with no RUN_PAUSED, and a retry finds the run paused already.
func TestStatusRunJSONRenamedKeepsEvent(t *testing.T) {
	r, _ := faultStore(t)
	events := r.St.RunPath("r", store.EventsFile)
	runDir := r.St.RunDir("r")
	restore := wfile.SetFault(func(op wfile.Op, path string) error {
		if op == wfile.Sync && filepath.Clean(path) == filepath.Clean(runDir) {
			return syscall.EIO
		}
		return nil
	})
	_, err := r.SetStatus("r", record.RunPaused, "paused by test")
	restore()
	run, rerr := r.St.ReadRun("r")
	if rerr != nil {
		t.Fatal(rerr)
	}
	ev, _ := os.ReadFile(events)
	paused, logged := run.Status == record.RunPaused, bytes.Contains(ev, []byte(`"RUN_PAUSED"`))
	if paused != logged {
		t.Errorf("run.json says %s, events.jsonl has RUN_PAUSED: %v (err %v)", run.Status, logged, err)
	}
}

// A status change killed after its event and report row were appended and
// before its run.json was written: the next writer's repair cuts both
// back, as for a refused run.json, so the retry logs one RUN_PAUSED and
// events.jsonl never says paused of a run that is running. Before this,
// the event stayed, and the retry added a second.
func TestKilledStatusChangeLeavesNoEvent(t *testing.T) {
	r, _ := faultStore(t)
	events := r.St.RunPath("r", store.EventsFile)
	evBefore, _ := os.ReadFile(events)
	notMade := pauseNotMade(t, r)
	restore := wfile.SetFault(func(op wfile.Op, path string) error {
		if op == wfile.Write && strings.Contains(filepath.Base(path), store.RunFile) {
			runtime.Goexit() // the writer dies here; its flock goes with it
		}
		return nil
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.SetStatus("r", record.RunPaused, "paused by test")
	}()
	<-done
	restore()
	if ev, _ := os.ReadFile(events); !bytes.Contains(ev[len(evBefore):], []byte(`"RUN_PAUSED"`)) {
		t.Fatal("the killed change appended no event: the test does not reach its case")
	}
	if err := r.Repair("r"); err != nil {
		t.Fatal(err)
	}
	notMade()
	if _, err := r.SetStatus("r", record.RunCanceled, "canceled by test"); err != nil {
		t.Fatal(err)
	}
	if err := r.Repair("r"); err != nil { // a status made stays
		t.Fatal(err)
	}
	if ev, _ := os.ReadFile(events); !bytes.Contains(ev, []byte(`"RUN_CANCELED"`)) {
		t.Error("repair removed a status change that was made")
	}
}
