package loopkit_test

// An attack on the store's two promises (nothing acknowledged is lost or
// duplicated; nothing outside the store is touched) by real processes: 8
// writers on 2 runs, a cleaner deleting runs in a tight loop, SIGKILLs. The
// checker below reads the files itself with encoding/json and never uses the
// store's own readers, so a bug shared by writer and reader cannot hide.

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// stressAck is what a writer was told: its record was stored.
type stressAck struct {
	run       string
	iteration int
	digest    string
	sha       string // sha256 of the validation stdout it sent
	createdAt int64  // the IterationLog's created_at: stamped under the lock
}

type stressLog struct {
	Iteration   int    `json:"iteration"`
	RunID       string `json:"run_id"`
	InputDigest string `json:"input_digest"`
	StdoutBytes int64  `json:"stdout_bytes"`
	CreatedAt   int64  `json:"created_at"`
}

// commandLinks makes loop-* names for the test binary, which testscript's
// Main turns into the real commands.
func commandLinks(t *testing.T, names ...string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, n := range names {
		if err := os.Symlink(exe, filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestCrashStoreUnderClean runs for LOOPKIT_STRESS_SECONDS (a few seconds by
// default; make crash runs it for minutes).
func TestCrashStoreUnderClean(t *testing.T) {
	t.Parallel()
	secs := 4
	if s := os.Getenv("LOOPKIT_STRESS_SECONDS"); s != "" {
		secs, _ = strconv.Atoi(s)
	}
	if testing.Short() {
		secs = 2
	}
	bin := commandLinks(t, "loop-record", "loop-clean")
	root := filepath.Join(t.TempDir(), ".loop")
	spool := filepath.Join(root, "spool")
	if err := os.MkdirAll(spool, 0o700); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "LOOP_STORE="+root, "LOOP_LOG_LEVEL=warn", "NO_COLOR=1")
	runs := []string{"ra", "rb"}
	deadline := time.Now().Add(time.Duration(secs) * time.Second)

	var mu sync.Mutex
	var acks []stressAck
	inputs := map[string]string{} // input digest -> sha256 of its stdout
	var failures []string
	killed, cleans := 0, 0

	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := mrand.New(mrand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
			for i := 0; time.Now().Before(deadline); i++ {
				run := runs[rng.IntN(len(runs))]
				in, digest, sha := stressInput(t, spool, w, i)
				mu.Lock()
				inputs[digest] = sha
				mu.Unlock()
				cmd := exec.Command(filepath.Join(bin, "loop-record"), "--run", run)
				cmd.Env, cmd.Stdin = env, bytes.NewReader(in)
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				if err := cmd.Start(); err != nil {
					t.Error(err)
					return
				}
				kill := rng.IntN(5) == 0
				var timer *time.Timer
				if kill {
					timer = time.AfterFunc(time.Duration(rng.IntN(40000))*time.Microsecond, func() { cmd.Process.Signal(syscall.SIGKILL) })
				}
				err := cmd.Wait()
				if timer != nil {
					timer.Stop()
				}
				mu.Lock()
				switch {
				case err != nil && kill && cmd.ProcessState.Sys().(syscall.WaitStatus).Signaled():
					killed++
				case err != nil:
					failures = append(failures, fmt.Sprintf("writer %d on %s: %v: %s", w, run, err, strings.TrimSpace(errb.String())))
				default:
					var l stressLog
					if json.Unmarshal(out.Bytes(), &l) != nil || l.InputDigest != digest || l.RunID != run {
						failures = append(failures, fmt.Sprintf("writer %d: acknowledged output %q", w, out.Bytes()))
					} else {
						acks = append(acks, stressAck{run, l.Iteration, digest, sha, l.CreatedAt})
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Add(1)
	go func() { // the cleaner, itself killed now and then
		defer wg.Done()
		rng := mrand.New(mrand.NewPCG(99, uint64(time.Now().UnixNano())))
		for time.Now().Before(deadline) {
			cmd := exec.Command(filepath.Join(bin, "loop-clean"), "--keep-last", "1", "--keep-days", "0")
			cmd.Env = env
			var errb bytes.Buffer
			cmd.Stderr = &errb
			cmd.Start()
			var timer *time.Timer
			if rng.IntN(4) == 0 {
				timer = time.AfterFunc(time.Duration(rng.IntN(20000))*time.Microsecond, func() { cmd.Process.Signal(syscall.SIGKILL) })
			}
			err := cmd.Wait()
			if timer != nil {
				timer.Stop()
			}
			mu.Lock()
			cleans++
			if err != nil && !cmd.ProcessState.Sys().(syscall.WaitStatus).Signaled() {
				failures = append(failures, fmt.Sprintf("loop-clean: %v: %s", err, strings.TrimSpace(errb.String())))
			}
			mu.Unlock()
			time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
		}
	}()
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	// one last writer per run repairs what a killed one left, as any next
	// writer would
	for _, run := range runs {
		if _, err := os.Lstat(filepath.Join(root, "runs", run)); err != nil {
			continue
		}
		cmd := exec.Command(filepath.Join(bin, "loop-record"), "--run", run, "--repair")
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("repair %s: %v: %s", run, err, out)
		}
	}
	t.Logf("%ds: %d acknowledged, %d writers killed, %d cleans", secs, len(acks), killed, cleans)
	checkStress(t, root, runs, acks, inputs)
}

// stressInput spools a validation stdout the way loop-validate does and
// returns the record naming it, the record's digest (sha256 of the line and
// its newline, as the IterationLog's input_digest) and the stdout's sha256.
func stressInput(t *testing.T, spool string, w, i int) ([]byte, string, string) {
	var rnd [8]byte
	rand.Read(rnd[:])
	content := fmt.Sprintf("writer %d input %d %x\n%s", w, i, rnd, strings.Repeat("y", mrand.IntN(3000)))
	name := fmt.Sprintf("%d-%d-%x.validate.stdout", time.Now().UnixMilli(), os.Getpid(), rnd[:4])
	path := filepath.Join(spool, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Error(err)
	}
	exit := i % 2
	rec := map[string]any{"type": "validation", "command": "check", "exit_code": exit,
		"stdout": "", "stderr": "", "stdout_bytes": len(content), "stderr_bytes": 0,
		"stdout_file": path, "stderr_file": nil, "duration_ms": 1, "started_at": 1, "ended_at": 2,
		"timed_out": false, "signal": nil, "error": nil, "files_changed": []string{}}
	line, _ := json.Marshal(rec)
	line = append(line, '\n')
	d := sha256.Sum256(line)
	s := sha256.Sum256([]byte(content))
	return line, hex.EncodeToString(d[:]), hex.EncodeToString(s[:])
}

// checkStress: in the incarnation of each run that survives, iterations
// run 1..N, each input once, each folder holding the bytes its input sent;
// every acknowledged record is there at the number it was given, unless its
// incarnation was deleted, which is only possible when it was stamped before
// the surviving incarnation's first commit.
func checkStress(t *testing.T, root string, runs []string, acks []stressAck, inputs map[string]string) {
	t.Helper()
	for _, run := range runs {
		dir := filepath.Join(root, "runs", run)
		data, err := os.ReadFile(filepath.Join(dir, "iterations.jsonl"))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		byDigest := map[string]int{}
		first := int64(-1)
		lines := strings.Split(string(data), "\n")
		if len(lines) > 0 && lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		for i, line := range lines {
			var l stressLog
			if err := json.Unmarshal([]byte(line), &l); err != nil {
				t.Fatalf("%s line %d: %v: %q", run, i+1, err, line)
			}
			if l.Iteration != i+1 {
				t.Fatalf("%s: line %d holds iteration %d (log not contiguous)", run, i+1, l.Iteration)
			}
			if first < 0 {
				first = l.CreatedAt
			}
			if prev, dup := byDigest[l.InputDigest]; dup {
				t.Fatalf("%s: one input stored twice, iterations %d and %d", run, prev, l.Iteration)
			}
			byDigest[l.InputDigest] = l.Iteration
			want, ok := inputs[l.InputDigest]
			if !ok {
				t.Fatalf("%s: iteration %d stores an input nobody sent", run, l.Iteration)
			}
			got, err := os.ReadFile(filepath.Join(dir, "iterations", fmt.Sprintf("%03d", l.Iteration), "validation.stdout"))
			if err != nil {
				t.Fatalf("%s: iteration %d: %v", run, l.Iteration, err)
			}
			if s := sha256.Sum256(got); hex.EncodeToString(s[:]) != want || int64(len(got)) != l.StdoutBytes {
				t.Fatalf("%s: iteration %d: folder holds other bytes than its input sent", run, l.Iteration)
			}
		}
		if entries, err := os.ReadDir(filepath.Join(dir, "iterations")); err == nil {
			for _, e := range entries {
				if n, err := strconv.Atoi(e.Name()); err != nil || n < 1 || n > len(lines) {
					t.Fatalf("%s: iterations/%s has no log line", run, e.Name())
				}
			}
		}
		for _, a := range acks {
			if a.run != run {
				continue
			}
			n, ok := byDigest[a.digest]
			switch {
			case ok && n != a.iteration:
				t.Fatalf("%s: acknowledged as iteration %d, stored as %d", run, a.iteration, n)
			case !ok && first >= 0 && a.createdAt > first:
				t.Fatalf("%s: acknowledged iteration %d (created %d) lost from the surviving run (first commit %d)", run, a.iteration, a.createdAt, first)
			}
		}
	}
}
