package loopview

import (
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/testsupport/storetest"
)

// lockedBuilder is a strings.Builder the follower writes while the test reads.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A status change whose run.json the disk refuses cuts its event back off
// events.jsonl (store.CutBack). events --follow had read past that point
// and went on from its old offset: the events appended next, shorter than
// the cut one, were never shown (a longer one, from its middle: "not a
// JSON object").
func TestEventsFollowAfterACut(t *testing.T) {
	st := storetest.Driven(t, record.RunRunning)
	drop := storetest.RecordDriver(t, st, "r", os.Getpid())
	defer drop()
	path := st.RunPath("r", store.EventsFile)
	add := func(typ, msg string) {
		t.Helper()
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(`{"ts":1,"run_id":"r","type":"` + typ + `","message":"` + msg + "\"}\n"); err != nil {
			t.Fatal(err)
		}
	}
	add("STEP_STARTED", "one")
	out, errOut := &lockedBuilder{}, &lockedBuilder{}
	env := cli.NewEnv("loop-view", []string{"events", "r", "--follow", "--json", "--interval", "10ms", "--store", st.Root},
		strings.NewReader(""), out, errOut)
	done := make(chan int, 1)
	go func() { done <- env.Finish(Main(env)) }()
	waitIn := func(b *lockedBuilder, s string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !strings.Contains(b.String(), s); {
			if time.Now().After(deadline) {
				t.Fatalf("no %q in the follower's output: %q", s, b.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitFor := func(s string) { t.Helper(); waitIn(out, s) }
	waitFor(`"one"`)
	before := store.Size(path)
	add("RUN_PAUSED", strings.Repeat("a change not made ", 10))
	waitFor("RUN_PAUSED")
	if err := store.CutBack(path, before); err != nil {
		t.Fatal(err)
	}
	waitIn(errOut, "was cut back or replaced") // the follower saw the cut
	add("STEP_FINISHED", "two")
	waitFor(`"two"`)
	run, err := st.ReadRun("r")
	if err != nil {
		t.Fatal(err)
	}
	run.Status = record.RunCompleted
	if err := st.WriteRun(run); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d once the run ended", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the follower did not end with the run")
	}
}
