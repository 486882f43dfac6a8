package nextaction

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
)

// The watchdog's quiet check reuses the lines Load decoded only when they
// are exactly the log's last ones: a line Load skipped (no commit) or too
// few lines of a longer log send it back to the log.
func TestTailOnlyWhenExact(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), ".loop"))
	if err != nil {
		t.Fatal(err)
	}
	run := store.NewRun("r", "r", time.Now().UnixMilli())
	run.Settings = runconfig.Defaults()
	if err := st.CreateRun(run); err != nil {
		t.Fatal(err)
	}
	path := st.RunPath("r", store.IterationsFile)
	for n := 1; n <= 2; n++ {
		if err := store.AppendLine(path, []byte(fmt.Sprintf(`{"iteration":%d}`, n))); err != nil {
			t.Fatal(err)
		}
	}
	in, err := Load(st, "r")
	if err != nil {
		t.Fatal(err)
	}
	if got := in.tail(3); len(got) != 2 || got[1].Iteration != 2 {
		t.Fatalf("whole log of 2: tail(3) = %v, want iterations 1 and 2", got)
	}
	if got := in.tail(1); len(got) != 1 || got[0].Iteration != 2 {
		t.Fatalf("tail(1) = %v, want iteration 2", got)
	}
	if got := in.tail(Lookback + 1); got == nil {
		t.Fatal("a whole log shorter than asked: want it all")
	}
	if err := store.AppendLine(path, []byte(`{"iteration":0}`)); err != nil {
		t.Fatal(err)
	}
	if in, err = Load(st, "r"); err != nil {
		t.Fatal(err)
	}
	if got := in.tail(2); got != nil {
		t.Fatalf("a skipped line: tail = %v, want nil (read the log)", got)
	}
	for n := 3; n <= Lookback+3; n++ {
		if err := store.AppendLine(path, []byte(fmt.Sprintf(`{"iteration":%d}`, n))); err != nil {
			t.Fatal(err)
		}
	}
	if in, err = Load(st, "r"); err != nil {
		t.Fatal(err)
	}
	if got := in.tail(3); len(got) != 3 || got[2].Iteration != Lookback+3 {
		t.Fatalf("tail(3) = %v", got)
	}
	if got := in.tail(Lookback + 1); got != nil {
		t.Fatal("more lines than Load read of a longer log: want nil")
	}
}
