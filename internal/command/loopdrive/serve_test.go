package loopdrive

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/testsupport/storetest"
)

// runningRun is a store with run "r" running, up to max iterations of
// validation records alone (no agent step, so no agent failures count).
func runningRun(t *testing.T, max int) *store.Store {
	st, _ := storetest.Run(t, func(run *record.Run) {
		run.Settings.MaxIterations = max
		run.Settings.MaxAgentFailures = 2 * max
		run.Status = record.RunRunning
	})
	return st
}

// testKey is the key of the holders these tests talk to.
const testKey = "k3y"

// send is the driver's side of a request (scripts/loop.d/drive.sh, next_action).
func send(errorFile string, args []string, stdin string) string {
	return sendKey(testKey, errorFile, args, stdin)
}

// sendKey is send with another key.
func sendKey(key, errorFile string, args []string, stdin string) string {
	fields := append(append([]string{key, errorFile}, args...), "", stdin)
	return strings.Join(fields, "\x00") + "\x00"
}

// parseAnswer splits an answer as scripts/loop.d/drive.sh reads it: the
// key up to a NUL, a line "LENGTH CODE", then exactly LENGTH bytes, which
// the driver reads in one read -N (not a read(2) per byte, as up to a
// NUL); ok is false when the answer is not that.
func parseAnswer(a string) (key, text, code string, ok bool) {
	key, rest, ok := strings.Cut(a, "\x00")
	head, text, ok2 := strings.Cut(rest, "\n")
	n, code, ok3 := strings.Cut(head, " ")
	length, err := strconv.Atoi(n)
	if !ok || !ok2 || !ok3 || err != nil || length != len(text) {
		return key, text, "", false
	}
	return key, text, code + "\n", true
}

// The holder answers the driver's record and next calls for its run, as
// many as a long run makes, with what loop-drive would print and its exit
// status, and keeps no descriptor from one to the next; it refuses any
// other mode or run with exit 2 and records nothing.
func TestHolderAnswers(t *testing.T) {
	st := runningRun(t, 100)
	t.Setenv("LOOP_STORE", st.Root)
	const n = 40
	var in bytes.Buffer
	for i := 1; i <= n; i++ {
		line := `{"type":"validation","command":"false","exit_code":1,"stdout":"no ` + strings.Repeat("x", i) + `"}` + "\n"
		in.WriteString(send("", []string{"record", "--iteration", fmt.Sprint(i), "--run", "r"}, line))
	}
	errFile := filepath.Join(t.TempDir(), "error")
	in.WriteString(send("", []string{"next", "--run", "r"}, ""))
	in.WriteString(send(errFile, []string{"record", "--iteration", "41", "--run", "other"}, "{}\n"))
	in.WriteString(send("", []string{"merge", "--run", "r"}, ""))
	in.WriteString(send("", []string{"record", "--iteration", "41", "--run", "r", "--run", "other"}, "{}\n"))
	reqs := make(chan request)
	go readRequests(&in, reqs)

	var out bytes.Buffer
	env := cli.NewEnv("loop-drive", nil, strings.NewReader(""), &out, io.Discard)
	// open descriptors, -1 where none can be listed: then only the
	// answers are checked, not skipped with the count
	fds := func() int {
		d, err := os.ReadDir("/dev/fd")
		if err != nil {
			return -1
		}
		return len(d)
	}
	var before int
	got := 0
	srv := &server{key: testKey}
	for req := range reqs {
		if got == 1 {
			runtime.GC()
			before = fds()
		}
		out.Reset()
		if err := srv.answer(env, "r", req); err != nil {
			t.Fatal(err)
		}
		got++
		key, text, code, ok := parseAnswer(out.String())
		switch {
		case key != testKey:
			t.Fatalf("answer %d starts with %q, not the key", got, key)
		case !ok:
			t.Fatalf("answer %d is not the key, a NUL, \"LENGTH CODE\\n\" and LENGTH bytes: %q", got, out.String())
		case got <= n+1 && (code != "0\n" || !strings.Contains(text, "action=iterate")):
			t.Fatalf("answer %d: %q, exit %q", got, text, code)
		case got <= n && !strings.Contains(text, "summary=["):
			t.Fatalf("answer %d has no summary: %q", got, text)
		case got > n+1 && (code != "2\n" || text != ""):
			t.Fatalf("answer %d to %v: %q, exit %q; want nothing, exit 2", got, req.args, text, code)
		}
	}
	if got != n+4 {
		t.Fatalf("%d answers, want %d", got, n+4)
	}
	if after := fds(); before >= 0 && after > before {
		t.Errorf("%d descriptors open after %d records, %d after the first", after, n, before)
	}
	if last, _, err := st.LastIteration("r"); err != nil || last == nil || last.Iteration != n {
		t.Fatalf("last iteration %+v (%v), want %d", last, err, n)
	}
	if b, err := os.ReadFile(errFile); err != nil || !strings.Contains(string(b), "answers only") {
		t.Errorf("error file: %q (%v)", b, err)
	}
}

// The agent can write to the holder's pipes (/proc/PID/fd). A request
// without the key (a record of a forged pass, whose error file is a file
// of the person's) is not answered: nothing is recorded, no file written,
// and its answer has no key, which the driver takes for the run's failure;
// the driver's own requests after it fail too, since the stream may be out
// of step. Before, the pass was recorded and the file truncated.
func TestHolderRefusesUnkeyed(t *testing.T) {
	st := runningRun(t, 10)
	t.Setenv("LOOP_STORE", st.Root)
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	pass := `{"type":"validation","command":"true","exit_code":0}` + "\n"
	var in bytes.Buffer
	in.WriteString(sendKey("guess", victim, []string{"record", "--iteration", "1", "--run", "r"}, pass))
	in.WriteString(sendKey("", victim, []string{"merge", "--run", "r"}, ""))
	errFile := filepath.Join(t.TempDir(), "error")
	in.WriteString(send(errFile, []string{"next", "--run", "r"}, ""))
	reqs := make(chan request)
	go readRequests(&in, reqs)
	var out, stderr bytes.Buffer
	env := cli.NewEnv("loop-drive", nil, strings.NewReader(""), &out, &stderr)
	srv := &server{key: testKey}
	var answers []string
	for req := range reqs {
		out.Reset()
		if err := srv.answer(env, "r", req); err != nil {
			t.Fatal(err)
		}
		answers = append(answers, out.String())
	}
	want := []string{"\x000 70\n", "\x000 70\n", testKey + "\x000 1\n"}
	if !slices.Equal(answers, want) {
		t.Errorf("answers %q, want %q", answers, want)
	}
	if last, _, err := st.LastIteration("r"); err != nil || last != nil {
		t.Errorf("iteration %+v recorded (%v), want none", last, err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("the file a request named was written: %q", b)
	}
	if b, _ := os.ReadFile(errFile); !strings.Contains(string(b), "without the driver's key") {
		t.Errorf("the driver's error file: %q", b)
	}
	if !strings.Contains(stderr.String(), "without the driver's key") {
		t.Errorf("stderr: %q", stderr.String())
	}
}

// A request cut short (the driver gone mid-write) is not answered.
func TestReadRequestsCutShort(t *testing.T) {
	reqs := make(chan request)
	go readRequests(strings.NewReader(send("", []string{"next", "--run", "r"}, "")[:10]), reqs)
	for req := range reqs {
		t.Fatalf("answered %v", req.args)
	}
}

// The driver checks the holder's first record against its own
// DRIVE_PROTOCOL: the two numbers move together.
func TestDriverSpeaksProtocol(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "scripts", "loop.d", "drive.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf(" DRIVE_PROTOCOL=%d ", Protocol); !strings.Contains(string(b), want) {
		t.Errorf("scripts/loop.d/drive.sh does not set %q (loop-drive's Protocol)", strings.TrimSpace(want))
	}
}

// A driver of another loopkit version (one from before the key, or from
// before the protocol check) sends its first request without this
// holder's key: the line said the agent had written to the pipes, where
// installing the driver and the commands together is the fix. A request
// without the key after the driver's own is still said to be another
// process's.
func TestHolderNamesAnotherVersion(t *testing.T) {
	st := runningRun(t, 10)
	t.Setenv("LOOP_STORE", st.Root)
	ask := func(reqs ...string) string {
		in := strings.NewReader(strings.Join(reqs, ""))
		ch := make(chan request)
		go readRequests(in, ch)
		var out, stderr bytes.Buffer
		env := cli.NewEnv("loop-drive", nil, strings.NewReader(""), &out, &stderr)
		srv := &server{key: testKey}
		for req := range ch {
			if err := srv.answer(env, "r", req); err != nil {
				t.Fatal(err)
			}
		}
		return stderr.String()
	}
	older := ask(sendKey("", "", []string{"next", "--run", "r"}, ""))
	if !strings.Contains(older, "another loopkit version's") || !strings.Contains(older, "make install") {
		t.Errorf("a first request without the key: %q, want the driver of another version named", older)
	}
	later := ask(send("", []string{"next", "--run", "r"}, ""), sendKey("guess", "", []string{"next", "--run", "r"}, ""))
	if !strings.Contains(later, "the agent, through /proc/PID/fd") || strings.Contains(later, "another loopkit version") {
		t.Errorf("a request without the key after the driver's: %q", later)
	}
}
