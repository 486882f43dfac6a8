package retention

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/gitrun"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
)

// A cleaned run leaves no git config hash in the state directory: they
// used to pile up there, one per run ever started, after the runs had gone.
// A tombstone a killed clean left is forgotten when it is finished.
func TestCleanForgetsGitConfigHash(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	st := newStore(t)
	for _, id := range []string{"old", "tomb", "fresh"} {
		makeRun(t, st, id, map[string]float64{"old": 30, "tomb": 30, "fresh": 0}[id], "completed")
		if err := gitrun.Remember(st.RunDir(id), repo); err != nil {
			t.Fatal(err)
		}
	}
	hashes := func() int {
		ents, _ := os.ReadDir(filepath.Join(state, "loopkit", "git-config"))
		return len(ents)
	}
	if n := hashes(); n != 3 {
		t.Fatalf("%d hashes kept, want 3", n)
	}
	// as a clean killed between its rename and its removal leaves it
	if err := os.Rename(st.RunDir("tomb"), filepath.Join(st.RunsDir(), store.TombPrefix+"tomb-1700000000000")); err != nil {
		t.Fatal(err)
	}
	if rep, _ := clean(t, st, Options{Policy: defaults, Now: time.Now()}); rep.Deleted != 1 {
		t.Fatalf("report %+v", rep)
	}
	assertNoTombstones(t, st)
	if n := hashes(); n != 1 {
		t.Errorf("%d hashes kept after the clean, want 1 (the fresh run's)", n)
	}
}

// The settings a driver keeps for its run outside the store go with the
// run when a clean finishes the tombstone a killed clean left: they used
// to stay in the state directory for good (only a clean that was not
// killed between its rename and its removal dropped them).
func TestFinishedTombstoneForgetsKeptSettings(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	st := newStore(t)
	for _, id := range []string{"tomb", "fresh"} {
		makeRun(t, st, id, 0, "completed")
		s := runconfig.Settings{Agent: []string{"agent"}}
		if err := runconfig.Keep(st.RunDir(id), &s); err != nil {
			t.Fatal(err)
		}
	}
	kept := func() []string {
		ents, _ := os.ReadDir(filepath.Join(state, "loopkit", "settings"))
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return names
	}
	if n := kept(); len(n) != 4 {
		t.Fatalf("kept %v, want the settings and state of 2 runs", n)
	}
	// as a clean killed between its rename and its removal leaves it
	if err := os.Rename(st.RunDir("tomb"), filepath.Join(st.RunsDir(), store.TombPrefix+"tomb-1700000000000")); err != nil {
		t.Fatal(err)
	}
	if rep, _ := clean(t, st, Options{Policy: defaults, Now: time.Now()}); rep.Tombstones != 1 {
		t.Fatalf("report %+v", rep)
	}
	if n := kept(); len(n) != 2 || !runconfig.IsKept(st.RunDir("fresh")) {
		t.Errorf("kept %v after the clean, want only the fresh run's 2 files", n)
	}
}
