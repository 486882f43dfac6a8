package loopview

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// TestFollowUnknownRunSays: tail and logs --follow of a run that does not
// exist wait for it (tail -F), but say so at once in one line: a mistyped
// id used to wait in silence. The run then appears, ended: exit 0.
//
// Without a RUN, in a store with no runs yet (a wrong LOOP_STORE, another
// directory), they wait for the first and say that too: it was silent.
func TestFollowUnknownRunSays(t *testing.T) {
	for _, args := range [][]string{{"tail", "later"}, {"logs", "--follow", "--until-done", "later"}, {"events", "--follow", "later"},
		{"tail"}, {"logs", "--follow", "--until-done"}, {"events", "--follow"}} {
		st := &store.Store{Root: filepath.Join(t.TempDir(), ".loop")}
		if err := os.MkdirAll(filepath.Join(st.Root, "runs"), 0o755); err != nil {
			t.Fatal(err)
		}
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		env := cli.NewEnv("loop-view", append(args, "--store", st.Root), strings.NewReader(""), &strings.Builder{}, w)
		done := make(chan int, 1)
		go func() { done <- env.Finish(Main(env)) }()
		r.SetReadDeadline(time.Now().Add(60 * time.Second)) // a failure, not a hang
		line, err := bufio.NewReader(r).ReadString('\n')
		want := "loop-view: no run later in store " + st.Root + " yet: waiting for it (Ctrl-C to stop; loop-view runs lists the runs)\n"
		if args[len(args)-1] != "later" {
			want = "loop-view: no runs in store " + st.Root + " yet: waiting for the first (Ctrl-C to stop)\n"
		}
		if err != nil || line != want {
			t.Errorf("%v: stderr %q (%v), want %q", args, line, err, want)
		}
		run := store.NewRun("later", "later", time.Now().UnixMilli())
		run.Status = record.RunCompleted
		if err := st.CreateRun(run); err != nil {
			t.Fatal(err)
		}
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("%v: exit %d once the run ended", args, code)
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("%v: still waiting 60 s after the run ended", args)
		}
		w.Close()
		r.Close()
	}
}
