package userdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A subdirectory of the runtime directory is held to the same checks as
// the directory itself: made 0700, a loose mode tightened, a link (which
// the agent, running as the user, could plant) refused.
func TestRuntimeSub(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	dir, err := RuntimeSub("trees")
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Fatalf("RuntimeSub made %s: %v %v, want a 0700 directory", dir, fi, err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if again, err := RuntimeSub("trees"); err != nil || again != dir {
		t.Fatalf("RuntimeSub again = %q, %v", again, err)
	}
	if fi, _ := os.Lstat(dir); fi.Mode().Perm() != 0o700 {
		t.Fatalf("mode %04o left, want 0700", fi.Mode().Perm())
	}
	rt := filepath.Dir(dir)
	if err := os.Symlink(t.TempDir(), filepath.Join(rt, "configs")); err != nil {
		t.Fatal(err)
	}
	if _, err := RuntimeSub("configs"); err == nil || !strings.Contains(err.Error(), "not a directory of this user's") {
		t.Fatalf("RuntimeSub through a link = %v, want a refusal", err)
	}
}

// Without XDG_RUNTIME_DIR the runtime directory is under the state
// directory, never under the temporary directory, which the agent CLIs'
// sandboxes let the agent write (a FIFO it put in the driver's folder
// there faked a validation's pass).
func TestRuntimeFallback(t *testing.T) {
	tmp, state := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("XDG_STATE_HOME", state)
	dir, err := Runtime()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(state, "loopkit", "runtime"); dir != want {
		t.Fatalf("Runtime() = %s, want %s", dir, want)
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Fatalf("Runtime made %s: %v %v, want a 0700 directory", dir, fi, err)
	}
	if names, _ := os.ReadDir(tmp); len(names) != 0 {
		t.Fatalf("the temporary directory holds %v, want nothing", names)
	}
}
