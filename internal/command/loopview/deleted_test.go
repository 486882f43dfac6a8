package loopview

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/testsupport/storetest"
)

// A followed run deleted under its followers (loop-clean took it, or a
// person did) never comes back: tail, events --follow and logs --follow
// --until-done end with exit 1 and one line saying so. Before, each waited
// for ever, as for a run not there yet.
func TestFollowersEndWhenTheRunIsDeleted(t *testing.T) {
	for _, args := range [][]string{{"tail"}, {"events", "--follow"}, {"logs", "--follow", "--until-done"}} {
		t.Run(args[0], func(t *testing.T) {
			st := storetest.Driven(t, record.RunRunning)
			drop := storetest.RecordDriver(t, st, "r", os.Getpid())
			defer drop()
			if err := os.WriteFile(st.RunPath("r", store.IterationsFile),
				[]byte(`{"iteration":1,"command":"check","exit_code":1,"duration_ms":5}`+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(st.SpoolDir(), 0o700); err != nil {
				t.Fatal(err)
			}
			base := filepath.Join(st.SpoolDir(), "1-2-ab.step")
			meta, _ := json.Marshal(store.SpoolMeta{Command: "agent", RunID: "r"})
			os.WriteFile(base+".json", meta, 0o600)
			os.WriteFile(base+".stdout", []byte("agent says\n"), 0o600)

			out, errOut := &lockedBuilder{}, &lockedBuilder{}
			env := cli.NewEnv("loop-view", append(args, "r", "--interval", "10ms", "--store", st.Root),
				strings.NewReader(""), out, errOut)
			done := make(chan int, 1)
			go func() { done <- env.Finish(Main(env)) }()
			want := map[string]string{"tail": "agent says", "events": "RUN_CREATED", "logs": "[1] "}[args[0]]
			for deadline := time.Now().Add(20 * time.Second); !strings.Contains(out.String(), want); {
				if time.Now().After(deadline) {
					t.Fatalf("no %q in the follower's output: %q %q", want, out.String(), errOut.String())
				}
				time.Sleep(5 * time.Millisecond)
			}
			if err := os.RemoveAll(st.RunDir("r")); err != nil {
				t.Fatal(err)
			}
			select {
			case code := <-done:
				if code != 1 || !strings.Contains(errOut.String(), "run r was deleted from store "+st.Root+" while followed") {
					t.Errorf("exit %d, stderr %q; want 1 and the run named deleted", code, errOut.String())
				}
			case <-time.After(20 * time.Second):
				t.Fatal("the follower still waits 20 s after its run was deleted")
			}
		})
	}
}
