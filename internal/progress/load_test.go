package progress

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

func TestLoadNoSuchRun(t *testing.T) {
	st := &store.Store{Root: filepath.Join(t.TempDir(), ".loop")}
	_, err := Load(st, "nope", 5)
	if !errors.Is(err, store.ErrNoSuchRun) {
		t.Fatalf("err = %v, want ErrNoSuchRun", err)
	}
	if _, err := os.Stat(st.Root); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load created the store (%v): readers never create runs", err)
	}
}

func TestLoadNoIterations(t *testing.T) {
	st := newRun(t, "r1")
	logs, err := Load(st, "r1", 5)
	if err != nil || len(logs) != 0 {
		t.Fatalf("Load = %v, %v; want no logs", logs, err)
	}
}

// TestLoadTornTail: a writer killed mid-line leaves a line without its
// newline; the block is the one rendered before the torn write.
func TestLoadTornTail(t *testing.T) {
	st := newRun(t, "r1")
	for i := 1; i <= 7; i++ {
		appendLog(t, st, "r1", makeLog(i, 1, fmt.Sprintf("failure %d\n", i)))
	}
	before := render(t, st, "r1")
	line, _ := record.Marshal(makeLog(8, 0, "would pass"))
	path := st.RunPath("r1", store.IterationsFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(line[:len(line)/2])
	f.Close()
	if after := render(t, st, "r1"); after != before {
		t.Errorf("torn tail changed the block\nbefore %q\nafter  %q", before, after)
	}
}

// TestLoadEveryTruncation cuts the log at every byte offset: Load returns
// exactly the records whose lines are whole, like a crash at that byte.
func TestLoadEveryTruncation(t *testing.T) {
	st := newRun(t, "r1")
	var whole []int // file size after each record
	for i := 1; i <= 6; i++ {
		appendLog(t, st, "r1", makeLog(i, 1, strings.Repeat("é", i)))
		fi, _ := os.Stat(st.RunPath("r1", store.IterationsFile))
		whole = append(whole, int(fi.Size()))
	}
	path := st.RunPath("r1", store.IterationsFile)
	full, _ := os.ReadFile(path)
	for size := 0; size <= len(full); size++ {
		writeFile(t, path, full[:size])
		logs, err := Load(st, "r1", 3)
		if err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		complete := 0
		for _, w := range whole {
			if w <= size {
				complete++
			}
		}
		if want := min(complete, 3); len(logs) != want || (want > 0 && logs[len(logs)-1].Iteration != complete) {
			t.Fatalf("size %d: got %d logs, want the last %d of %d", size, len(logs), want, complete)
		}
	}
}

// TestLoadReadsOnlyTheEnd: garbage before the last lines is never parsed,
// which is what keeps the cost independent of the run's history.
func TestLoadReadsOnlyTheEnd(t *testing.T) {
	st := newRun(t, "r1")
	appendLine(t, st, "r1", []byte(strings.Repeat("not json ", 100000)))
	for i := 1; i <= 5; i++ {
		appendLog(t, st, "r1", makeLog(i, 1, "x"))
	}
	logs, err := Load(st, "r1", 5)
	if err != nil || len(logs) != 5 || logs[0].Iteration != 1 {
		t.Fatalf("Load = %d logs, %v", len(logs), err)
	}
	if _, err := Load(st, "r1", 6); err == nil || !strings.Contains(err.Error(), "line 6 from the end") {
		t.Errorf("a bad line must be reported by position, got %v", err)
	}
}

func TestLoadBadRunID(t *testing.T) {
	st := &store.Store{Root: t.TempDir()}
	if _, err := Load(st, "../x", 5); err == nil || errors.Is(err, store.ErrNoSuchRun) {
		t.Errorf("Load(../x) = %v, want an invalid run id error", err)
	}
}

func render(t *testing.T, st *store.Store, id string) string {
	t.Helper()
	logs, err := Load(st, id, 5)
	if err != nil {
		t.Fatal(err)
	}
	return Render(logs, DefaultLimits())
}
