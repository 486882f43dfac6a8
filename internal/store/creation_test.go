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

// A clock never set (a board without a real-time clock boots in 1970)
// is behind every run: the new run still sorts after them, or its id
// and created_at say it is the oldest, "the newest run" is another,
// and retention takes it for 56 years old once NTP sets the clock.
func TestCreationTimeClockUnset(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), ".loop"))
	if err != nil {
		t.Fatal(err)
	}
	made := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	before := NewRunID("before", made)
	if err := os.MkdirAll(st.RunDir(before), 0o700); err != nil {
		t.Fatal(err)
	}
	boot := time.Unix(75, 0).UTC()
	if at := st.CreationTime(boot); !at.Equal(made.Add(time.Millisecond)) {
		t.Errorf("created at %s with the clock at %s, want just after %s", at, boot, before)
	}
}
