package proc

import (
	"bytes"
	"errors"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/limits"
)

// liveInGroup lists processes of group pgid that are not zombies.
func liveInGroup(pgid int) []string {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var live []string
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		f := strings.Fields(string(b[i+2:]))
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			live = append(live, p)
		}
	}
	return live
}

// aliveAfterKill is liveInGroup once the signal sent to the group has
// taken effect: the kernel tears a killed process down after delivery,
// which a loaded machine may delay, so it waits for that, up to 10 s.
func aliveAfterKill(pgid int) []string {
	deadline := time.Now().Add(10 * time.Second)
	live := liveInGroup(pgid)
	for len(live) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		live = liveInGroup(pgid)
	}
	return live
}

func TestTimeoutKillsWholeGroup(t *testing.T) {
	res, err := Run(Spec{Args: []string{"sh", "-c", "echo started; sleep 100 & sleep 100"}, Timeout: 300 * time.Millisecond, Grace: 200 * time.Millisecond, InlineCap: 1024})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.ExitCode != -1 || res.StatusCode != 124 || res.Err == nil {
		t.Fatalf("result %+v", res)
	}
	if string(res.Stdout) != "started\n" {
		t.Fatalf("partial output lost: %q", res.Stdout)
	}
	if live := aliveAfterKill(res.PID); len(live) > 0 {
		t.Fatalf("processes of the group left alive: %v", live)
	}
}

func TestCaptureByteExact(t *testing.T) {
	dir := t.TempDir()
	payload := "a\x00b\xff\xfe\x1b[31mred\r\n"
	for _, tee := range []bool{false, true} {
		out, errp := filepath.Join(dir, "out"+strconv.FormatBool(tee)), filepath.Join(dir, "err"+strconv.FormatBool(tee))
		os.WriteFile(filepath.Join(dir, "payload"), []byte(payload), 0o644)
		spec := Spec{Args: []string{"sh", "-c", `for i in 1 2 3 4 5 6 7 8 9 10; do cat payload; done; cat payload >&2; exit 7`},
			Dir: dir, StdoutPath: out, StderrPath: errp, InlineCap: 16}
		var teeBuf bytes.Buffer
		if tee {
			spec.Tee = &teeBuf
		}
		res, err := Run(spec)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Repeat(payload, 10)
		got, _ := os.ReadFile(out)
		if string(got) != want || res.ExitCode != 7 || res.StatusCode != 7 {
			t.Fatalf("tee=%v: spool %q exit %d", tee, got, res.ExitCode)
		}
		if gotErr, _ := os.ReadFile(errp); string(gotErr) != payload {
			t.Fatalf("tee=%v: stderr spool %q", tee, gotErr)
		}
		if res.StdoutBytes != int64(len(want)) || !res.StdoutTrunc || string(res.Stdout) != want[len(want)-16:] {
			t.Fatalf("tee=%v: inline tail %q (%d bytes, trunc %v)", tee, res.Stdout, res.StdoutBytes, res.StdoutTrunc)
		}
		if tee && teeBuf.Len() != len(want)+len(payload) {
			t.Fatalf("tee got %d bytes", teeBuf.Len())
		}
	}
}

func TestStartFailures(t *testing.T) {
	dir := t.TempDir()
	noexec := filepath.Join(dir, "script.sh")
	os.WriteFile(noexec, []byte("#!/bin/sh\necho hi\n"), 0o644)
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"loopkit-no-such-command"}, 127},
		{[]string{noexec}, 126},
		{[]string{"./script.sh"}, 126},
		{[]string{"./missing.sh"}, 127},
	} {
		res, err := Run(Spec{Args: c.args, Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != c.code || res.ExitCode != -1 || res.Err == nil {
			t.Fatalf("%v: status %d exit %d err %v", c.args, res.StatusCode, res.ExitCode, res.Err)
		}
	}
}

func TestSignalForwardedToGroup(t *testing.T) {
	started := make(chan int, 1)
	done := make(chan *Result, 1)
	go func() {
		res, err := Run(Spec{Args: []string{"sh", "-c", "sleep 100 & sleep 100"}, Grace: 300 * time.Millisecond, OnStart: func(pid int) { started <- pid }})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	pgid := <-started
	time.Sleep(100 * time.Millisecond) // let Run's signal.Notify be in place and sh fork
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	res := <-done
	if res.Signal != "SIGTERM" || res.ExitCode != -1 || res.StatusCode != 128+int(syscall.SIGTERM) {
		t.Fatalf("result %+v", res)
	}
	if live := aliveAfterKill(pgid); len(live) > 0 {
		t.Fatalf("group left alive: %v", live)
	}
}

func TestTailBufferMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for round := 0; round < 200; round++ {
		limit := 1 + rng.Intn(64)
		tb := newTailBuffer(limit)
		var all []byte
		for i := 0; i < 50; i++ {
			p := make([]byte, rng.Intn(3*limit))
			rng.Read(p)
			tb.Write(p)
			all = append(all, p...)
		}
		got, total := tb.Tail()
		want := all[max(0, len(all)-limit):]
		if !bytes.Equal(got, want) || total != int64(len(all)) {
			t.Fatalf("round %d: tail differs", round)
		}
	}
}

// Stop, closed when a line says waiting cannot help, stops the whole group
// (one that ignores SIGTERM too, after the grace) and says so.
func TestStopFromALine(t *testing.T) {
	stop := make(chan struct{})
	var once bool
	act := func(line []byte) (bool, bool) {
		if string(line) == "refused" && !once {
			once = true
			close(stop)
		}
		return true, false
	}
	start := time.Now()
	res, err := Run(Spec{Args: []string{"sh", "-c", "trap '' TERM; echo refused; sleep 100 & sleep 100"},
		Grace: 200 * time.Millisecond, InlineCap: 1024, Activity: act, Stop: stop, IdleTimeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Stopped || res.TimedOut || res.StatusCode != 1 || res.ExitCode != -1 || res.Signal != "SIGKILL" {
		t.Fatalf("result %+v", res)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("took %s", d)
	}
	if live := aliveAfterKill(res.PID); len(live) > 0 {
		t.Fatalf("processes of the group left alive: %v", live)
	}
}

// A command killed by a resource limit's signal is told with the limit
// and its fix: "signal 25" said neither.
func TestKilledByLimit(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		script, signal, err string
	}{
		{"ulimit -f 1 && exec dd if=/dev/zero of=big bs=4096 count=2 2>/dev/null", "SIGXFSZ", "killed by SIGXFSZ: it wrote past " + limits.FileSize() + ": raise it (ulimit -f unlimited)"},
		{"kill -XCPU $$", "SIGXCPU", "killed by SIGXCPU: it used up " + limits.CPUTime() + ": raise it (ulimit -t unlimited)"},
		{"kill -ILL $$", "SIGILL", "killed by SIGILL"},
	} {
		res, err := Run(Spec{Args: []string{"bash", "-c", c.script}, Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if res.Signal != c.signal || res.Err == nil || res.Err.Error() != c.err {
			t.Errorf("%s: signal %q, err %v; want %s, %q", c.script, res.Signal, res.Err, c.signal, c.err)
		}
	}
}

// An agent that could not start because no process is left (fork's EAGAIN
// under ulimit -u or a container's pids.max) is told with that limit, not
// as a command that is not there.
func TestStartFailureUnderLimit(t *testing.T) {
	err := &os.PathError{Op: "fork/exec", Path: "/usr/bin/claude", Err: syscall.EAGAIN}
	res := startFailure(&Result{}, Spec{Args: []string{"claude"}}, err)
	want := "cannot start claude: resource temporarily unavailable: no process could be started: the process limit (ulimit -u"
	if res.Err == nil || !strings.HasPrefix(res.Err.Error(), want) {
		t.Fatalf("err %v, want %q...", res.Err, want)
	}
	// the machine's limit, which a resume gets past: not "not found"
	if !res.StartLimited() || !errors.Is(res.Err, syscall.EAGAIN) {
		t.Errorf("%v: not a start the limit refused, with its errno", res.Err)
	}
	if gone := startFailure(&Result{}, Spec{Args: []string{"claude"}}, exec.ErrNotFound); gone.StartLimited() {
		t.Errorf("%v: a command not found is no limit", gone.Err)
	}
}

// A command that dumped core says so, as a shell does: under ulimit -c the
// core file lands in its working directory, the work tree for an agent.
func TestKilledWithCore(t *testing.T) {
	dir := t.TempDir()
	res, err := Run(Spec{Args: []string{"sh", "-c", "ulimit -c unlimited 2>/dev/null; kill -SEGV $$"}, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if cores, _ := filepath.Glob(filepath.Join(dir, "core*")); len(cores) == 0 {
		t.Skip("no core file here (kernel.core_pattern, or ulimit -c): ", res.Err)
	}
	if res.Err == nil || res.Err.Error() != "killed by SIGSEGV (core dumped)" {
		t.Fatalf("err %v, want killed by SIGSEGV (core dumped)", res.Err)
	}
}
