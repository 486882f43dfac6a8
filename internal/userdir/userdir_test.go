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

// TestTemp: a TMPDIR that is gone, or a file, is an error naming it and
// the fix; a good one is used.
func TestTemp(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ tmpdir, want string }{
		{filepath.Join(dir, "gone"), "no such file or directory"},
		{file, "not a directory"},
	} {
		t.Setenv("TMPDIR", tc.tmpdir)
		_, err := Temp()
		if err == nil || !strings.Contains(err.Error(), "temporary directory "+tc.tmpdir+": "+tc.want+"; set TMPDIR") {
			t.Errorf("TMPDIR=%s: %v, want %q", tc.tmpdir, err, tc.want)
		}
		if _, err := MkdirTemp("x-*"); err == nil {
			t.Errorf("TMPDIR=%s: MkdirTemp made a folder", tc.tmpdir)
		}
	}
	t.Setenv("TMPDIR", dir)
	if got, err := Temp(); err != nil || got != dir {
		t.Errorf("TMPDIR=%s: %q, %v", dir, got, err)
	}
}

// A relative TMPDIR (TMPDIR=.tmp in a CI job) names a folder of the
// caller's directory; what is made there is handed to processes that run
// elsewhere (the agent in the workspace reads {prompt_file}), so Temp is
// absolute.
func TestTempRelative(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	t.Chdir(dir)
	if err := os.Mkdir("rel", 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", "rel")
	if got, err := Temp(); err != nil || got != filepath.Join(dir, "rel") {
		t.Errorf("TMPDIR=rel: %q, %v; want %s", got, err, filepath.Join(dir, "rel"))
	}
	f, err := CreateTemp("x-*")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if !filepath.IsAbs(f.Name()) {
		t.Errorf("CreateTemp made %s", f.Name())
	}
}

// HOME=. (a container's) or HOME='~' (quoted): the state directory was
// made relative to each command's folder, the workspace most often, where
// the agent could rewrite what the person accepted. It is refused, naming
// HOME, and nothing is made.
func TestStateRelativeHome(t *testing.T) {
	for _, home := range []string{".", "~", "rel/home"} {
		t.Chdir(t.TempDir())
		t.Setenv("HOME", home)
		t.Setenv("XDG_STATE_HOME", "")
		t.Setenv("XDG_RUNTIME_DIR", "")
		if _, err := State(); err == nil || !strings.Contains(err.Error(), `HOME "`+home+`" is not an absolute path`) {
			t.Errorf("HOME=%s: State() = %v, want a refusal naming HOME", home, err)
		}
		if _, err := Runtime(); err == nil {
			t.Errorf("HOME=%s: Runtime() made a folder", home)
		}
		if entries, _ := os.ReadDir("."); len(entries) > 0 {
			t.Errorf("HOME=%s: %s was made in the current folder", home, entries[0].Name())
		}
	}
}

// StatePath and RuntimePath, the checks made before anything exists, name
// the folders State and Runtime then make, with XDG_RUNTIME_DIR or without.
func TestPathsAreTheDirs(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	for _, rt := range []string{t.TempDir(), "", "relative"} {
		t.Setenv("XDG_STATE_HOME", "")
		t.Setenv("XDG_RUNTIME_DIR", rt)
		state, err := State()
		if err != nil || state != StatePath() {
			t.Errorf("XDG_RUNTIME_DIR=%q: State %q (%v), StatePath %q", rt, state, err, StatePath())
		}
		run, err := Runtime()
		if err != nil || run != RuntimePath() {
			t.Errorf("XDG_RUNTIME_DIR=%q: Runtime %q (%v), RuntimePath %q", rt, run, err, RuntimePath())
		}
	}
	t.Setenv("HOME", "")
	t.Setenv("XDG_STATE_HOME", "")
	if _, err := State(); err == nil || StatePath() != "" {
		t.Errorf("no home: State error %v, StatePath %q", err, StatePath())
	}
}

// StateSubPath finds what StateSub made and makes or changes nothing: a
// missing, linked or group-writable directory is an error.
func TestStateSubPathMakesNothing(t *testing.T) {
	base := t.TempDir()
	t.Setenv("XDG_STATE_HOME", base)
	if _, err := StateSubPath("settings"); err == nil {
		t.Fatal("StateSubPath of a missing directory succeeded")
	}
	if ents, _ := os.ReadDir(base); len(ents) > 0 {
		t.Fatalf("StateSubPath made %s", ents[0].Name())
	}
	made, err := StateSub("settings")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := StateSubPath("settings"); err != nil || got != made {
		t.Fatalf("StateSubPath = %q, %v; want %q", got, err, made)
	}
	if err := os.Chmod(made, 0o770); err != nil {
		t.Fatal(err)
	}
	if _, err := StateSubPath("settings"); err == nil {
		t.Error("StateSubPath of a group-writable directory succeeded")
	}
	if fi, _ := os.Stat(made); fi.Mode().Perm() != 0o770 {
		t.Errorf("StateSubPath changed the mode to %v", fi.Mode().Perm())
	}
	os.Remove(made)
	if err := os.Symlink(t.TempDir(), made); err != nil {
		t.Fatal(err)
	}
	if _, err := StateSubPath("settings"); err == nil {
		t.Error("StateSubPath of a link succeeded")
	}
}
