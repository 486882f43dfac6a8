package loopclean_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// loop-clean runs again and again while 4 loop-record processes append to
// the newest runs and end them (which cleans too): no record is lost and no
// writer fails, while the old runs around them are deleted.
func TestCleanWhileWritersAppend(t *testing.T) {
	const writers, appends = 4, 12
	st := newStore(t)
	for i := range 12 {
		newRun(t, st, fmt.Sprintf("old-%02d", i), 20+float64(i))
		newRun(t, st, fmt.Sprintf("mid-%02d", i), 1+float64(i)/10)
	}
	for w := range writers {
		newRun(t, st, fmt.Sprintf("new-%d", w), 0)
	}

	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			id := fmt.Sprintf("new-%d", w)
			for i := 1; i <= appends; i++ {
				v := fmt.Sprintf(`{"type":"validation","command":"go test","exit_code":1,"stdout":"writer %d append %d\n","stderr":""}`+"\n", w, i)
				cmd := command(st, "loop-record", "--run", id)
				cmd.Stdin = strings.NewReader(v)
				if out, err := cmd.CombinedOutput(); err != nil {
					errs <- fmt.Errorf("writer %d append %d: %v\n%s", w, i, err, out)
					return
				}
			}
			if out, err := command(st, "loop-record", "--run", id, "--status", "completed").CombinedOutput(); err != nil {
				errs <- fmt.Errorf("writer %d status: %v\n%s", w, err, out)
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	cleans := 0
	for running := true; running; cleans++ {
		select {
		case <-done:
			running = false
		default:
		}
		got := runClean(t, st, "--keep-last", "6")
		for w := range writers {
			if d := got[fmt.Sprintf("new-%d", w)]; d.Action == "delete" {
				t.Fatalf("a run being written was deleted: %+v", d)
			}
		}
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("%d cleans ran beside the writers", cleans)

	for w := range writers {
		id := fmt.Sprintf("new-%d", w)
		data, err := os.ReadFile(st.RunPath(id, store.IterationsFile))
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
		if len(lines) != appends {
			t.Fatalf("%s: %d records, want %d", id, len(lines), appends)
		}
		for i, line := range lines {
			var it record.IterationLog
			if err := json.Unmarshal(line, &it); err != nil || it.Iteration != i+1 ||
				it.Stdout != fmt.Sprintf("writer %d append %d\n", w, i+1) {
				t.Errorf("%s line %d: %s (%v)", id, i+1, line, err)
			}
		}
	}
	ids, _ := st.RunIDs()
	if len(ids) != 6 {
		t.Errorf("runs left: %v, want the 6 newest", ids)
	}
}
