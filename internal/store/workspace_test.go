package store

import (
	"os"
	"path/filepath"
	"testing"
)

// sameID is the one comparison SameWorkspace and sameAsDriver make: the
// folder a path names now against the ID the driver put in the environment.
func TestSameID(t *testing.T) {
	top := t.TempDir()
	ws, elsewhere := filepath.Join(top, "ws"), filepath.Join(top, "elsewhere")
	for _, d := range []string{ws, elsewhere} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	id, err := ID(ws)
	if err != nil {
		t.Fatal(err)
	}
	const env = "LOOPKIT_TEST_SAME_ID"
	t.Setenv(env, "")
	if !sameID(filepath.Join(top, "missing"), env) {
		t.Error("env unset: not the same (a person's own call is refused)")
	}
	t.Setenv(env, id)
	if !sameID(ws, env) {
		t.Error("the folder itself: not the same")
	}
	if sameID(filepath.Join(top, "missing"), env) {
		t.Error("a missing folder: the same")
	}
	// the agent moves the folder aside and puts a link to its own in its place
	if err := os.Rename(ws, filepath.Join(top, "aside")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, ws); err != nil {
		t.Fatal(err)
	}
	if sameID(ws, env) {
		t.Error("a link to another folder in its place: the same")
	}
	t.Setenv(DirIDEnv, id)
	if err := SameWorkspace(ws); err == nil {
		t.Error("SameWorkspace took the swapped workspace")
	}
	t.Setenv(IDEnv, id)
	t.Setenv("LOOP_STORE", ws)
	if _, err := Open(ws); err == nil {
		t.Error("Open took the driver's swapped store")
	}
}
