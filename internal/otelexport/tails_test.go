package otelexport

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/testsupport/storetest"
)

func iterLine(id string, i int) string {
	return fmt.Sprintf(`{"id":"%s-iter-%d","run_id":"%s","iteration":%d,"status":"fail","validation_command":"true","exit_code":1,"created_at":%d}`+"\n", id, i, id, i, 1000+i)
}

func appendLine(t *testing.T, path, line string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line); err != nil {
		t.Fatal(err)
	}
}

// A follow sends a growing run's new iteration reading only what was
// appended since: allocations for it do not grow with the iterations the
// run already has. (Main decoded the whole log again for each new
// iteration: quadratic over a long run.)
func TestStoreRunReadsOnlyNewLines(t *testing.T) {
	allocs := func(n int) float64 {
		st, run := storetest.Run(t, func(r *record.Run) { r.Status = record.RunRunning })
		path := st.RunPath(run.RunID, store.IterationsFile)
		var b bytes.Buffer
		for i := 1; i <= n; i++ {
			b.WriteString(iterLine(run.RunID, i))
		}
		if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		s, err := NewSession(&JSONExporter{W: &out}, defaultRedactor(), false, "test")
		if err != nil {
			t.Fatal(err)
		}
		m := RunMarks{CreatedAt: run.CreatedAt}
		sent := func(next RunMarks) error { m = next; return nil }
		if err := s.StoreRun(context.Background(), st, run.RunID, m, false, sent); err != nil || m.Iteration != n {
			t.Fatalf("first send: marks %+v, %v", m, err)
		}
		i := n
		return testing.AllocsPerRun(1, func() {
			i++
			appendLine(t, path, iterLine(run.RunID, i))
			out.Reset()
			if err := s.StoreRun(context.Background(), st, run.RunID, m, false, sent); err != nil || m.Iteration != i {
				t.Fatalf("iteration %d: marks %+v, %v", i, m, err)
			}
			if bytes.Count(out.Bytes(), []byte(`"name":"loop.iteration"`)) != 1 || !bytes.Contains(out.Bytes(), []byte(fmt.Sprintf(`"intValue":"%d"`, i))) {
				t.Fatalf("iteration %d: sent %s", i, out.Bytes())
			}
		})
	}
	small, large := allocs(20), allocs(2000)
	if large > 2*small {
		t.Fatalf("sending an iteration after 2000 made %.0f allocations, after 20 %.0f: it reads the whole log", large, small)
	}
}

// A log replaced behind the follow (a run moved back from a backup) is
// read again from its start.
func TestStoreRunLogReplaced(t *testing.T) {
	st, run := storetest.Run(t, func(r *record.Run) { r.Status = record.RunRunning })
	path := st.RunPath(run.RunID, store.IterationsFile)
	os.WriteFile(path, []byte(iterLine(run.RunID, 1)+iterLine(run.RunID, 2)), 0o600)
	var out bytes.Buffer
	s, _ := NewSession(&JSONExporter{W: &out}, defaultRedactor(), false, "test")
	m := RunMarks{CreatedAt: run.CreatedAt}
	sent := func(next RunMarks) error { m = next; return nil }
	if err := s.StoreRun(context.Background(), st, run.RunID, m, false, sent); err != nil || m.Iteration != 2 {
		t.Fatalf("first send: %+v, %v", m, err)
	}
	// shorter, then longer than what was read: lines 1-3 in a new file
	os.Remove(path)
	os.WriteFile(path, []byte(iterLine(run.RunID, 1)), 0o600)
	if err := s.StoreRun(context.Background(), st, run.RunID, m, false, sent); err != nil || m.Iteration != 2 {
		t.Fatalf("cut back: %+v, %v", m, err)
	}
	os.Remove(path)
	os.WriteFile(path, []byte(iterLine(run.RunID, 1)+iterLine(run.RunID, 2)+iterLine(run.RunID, 3)), 0o600)
	if err := s.StoreRun(context.Background(), st, run.RunID, m, false, sent); err != nil || m.Iteration != 3 {
		t.Fatalf("replaced: %+v, %v", m, err)
	}
}
