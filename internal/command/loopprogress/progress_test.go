package loopprogress

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// runCmd runs loop-progress in process and returns stdout, stderr and the exit status.
func runCmd(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	env := cli.NewEnv("loop-progress", args, strings.NewReader(stdin), &out, &errb)
	code := env.Finish(Main(env))
	return out.String(), errb.String(), code
}

func newStore(t *testing.T, iterations int) *store.Store {
	t.Helper()
	st := &store.Store{Root: filepath.Join(t.TempDir(), ".loop")}
	if err := st.CreateRun(store.NewRun("r1", "r1", 1)); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= iterations; i++ {
		line, _ := record.Marshal(record.IterationLog{Iteration: i, ValidationCommand: "make", ExitCode: 1, Stdout: strings.Repeat("out ", i)})
		if err := store.AppendLine(st.RunPath("r1", store.IterationsFile), line); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

// TestSaveMatchesRender: what --save stores is what a resumed loop renders.
func TestSaveMatchesRender(t *testing.T) {
	st := newStore(t, 7)
	saved, _, code := runCmd(t, "", "--store", st.Root, "--run", "r1", "--save", "--max-chars", "9")
	if code != 0 || saved == "" {
		t.Fatalf("--save: exit %d, stdout %q", code, saved)
	}
	run, err := st.ReadRun("r1")
	if err != nil {
		t.Fatal(err)
	}
	if run.Progress != saved {
		t.Errorf("run.json progress differs from the printed block\nrun.json %q\nprinted  %q", run.Progress, saved)
	}
	again, _, _ := runCmd(t, "", "--store", st.Root, "r1", "--max-chars", "9")
	if again != saved {
		t.Errorf("re-render differs from the saved block")
	}
}

func TestExitCodes(t *testing.T) {
	st := newStore(t, 1)
	for _, c := range []struct {
		stdin string
		args  []string
		code  int
	}{
		{"", []string{"--store", st.Root, "--run", "r1"}, exitcode.OK},
		{"", []string{"--store", st.Root, "--run", "missing"}, exitcode.Failure},
		{"", []string{"--store", st.Root, "--run", "a/b"}, exitcode.Usage},
		{"", []string{"--store", st.Root, "r1", "extra"}, exitcode.Usage},
		{"", []string{"--store", st.Root, "--run", "r1", "--format", "yaml"}, exitcode.Usage},
		{"{\n", []string{"--store", st.Root, "--from", "-"}, exitcode.BadInput},
		{"", []string{"--store", st.Root, "--from", "-"}, exitcode.OK},
		{"", []string{"--help"}, exitcode.OK},
	} {
		if _, stderr, code := runCmd(t, c.stdin, c.args...); code != c.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", c.args, code, c.code, stderr)
		}
	}
}
