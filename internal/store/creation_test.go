package store

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCreationTimeAfterClockWentBack: a run made after the clock went back
// (it was hours ahead until NTP set it right) still sorts after the runs
// made before, by id and by created_at, so "the newest run" every command
// given no run shows is the one just made; a run id a day or more ahead
// (a planted or badly clocked one) is not followed.
func TestCreationTimeAfterClockWentBack(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), ".loop"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	if got := st.CreationTime(now); !got.Equal(now) {
		t.Fatalf("an empty store: %s, want now", got)
	}
	ahead := NewRunID("before", now.Add(5*time.Hour+30*time.Minute))
	for _, id := range []string{ahead, "r"} {
		if err := os.MkdirAll(st.RunDir(id), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	at := st.CreationTime(now)
	if id := NewRunID("after", at); id <= ahead {
		t.Errorf("the new run %s sorts before %s, made earlier", id, ahead)
	}
	if want := now.Add(5*time.Hour + 30*time.Minute + time.Millisecond); !at.Equal(want) {
		t.Errorf("created at %s, want %s", at, want)
	}
	if got := st.CreationTime(now.Add(-24 * time.Hour)); !got.Equal(now.Add(-24 * time.Hour)) {
		t.Errorf("an id a day ahead was followed: %s", got)
	}
	if later := now.Add(6 * time.Hour); !st.CreationTime(later).Equal(later) {
		t.Error("a clock past every id is not now")
	}
}
