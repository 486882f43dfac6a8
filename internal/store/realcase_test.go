package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// foldCase stands in a file system that ignores case (macOS, exFAT): a
// name finds the entry its folder lists in any case.
func foldCase(t *testing.T) {
	fold := func(p string) string {
		out := string(filepath.Separator)
		for _, name := range strings.Split(filepath.Clean(p), string(filepath.Separator)) {
			if name == "" {
				continue
			}
			next := filepath.Join(out, name)
			if names, err := os.ReadDir(out); err == nil {
				for _, e := range names {
					if strings.EqualFold(e.Name(), name) {
						next = filepath.Join(out, e.Name())
					}
				}
			}
			out = next
		}
		return out
	}
	lstat = func(p string) (os.FileInfo, error) { return os.Lstat(fold(p)) }
	readNames = func(dir string) ([]string, error) {
		f, err := os.Open(fold(dir))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return f.Readdirnames(-1)
	}
	t.Cleanup(func() { lstat, readNames = os.Lstat, readDirNames })
}

// Two spellings of one folder on a file system that ignores case are one
// path: else a second loop started from ~/code/app ran beside the one in
// ~/Code/App in the same work tree (its lock keyed by another path), and
// a resume from there found no settings kept for the run.
func TestRealCase(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	want := filepath.Join(base, "Code", "App")
	if err := os.MkdirAll(want, 0o700); err != nil {
		t.Fatal(err)
	}
	if got := RealCase(want); got != want {
		t.Errorf("on a file system that minds case: %s, want it as it is", got)
	}
	foldCase(t)
	for _, p := range []string{want, filepath.Join(base, "code", "APP"), filepath.Join(base, "CODE", "app")} {
		if got := RealCase(p); got != want {
			t.Errorf("RealCase(%s) = %s, want %s", p, got, want)
		}
	}
	if got := RealCase(filepath.Join(base, "code", "gone")); got != filepath.Join(base, "Code", "gone") {
		t.Errorf("a name not there: %s", got)
	}
	st, err := Open(filepath.Join(base, "code", "app", ".loop"))
	if err != nil || st.Root != filepath.Join(want, ".loop") {
		t.Errorf("store root %v (%v), want %s", st, err, filepath.Join(want, ".loop"))
	}
}

// A run named in another case on a file system that ignores case is no
// run of that name: a repair would have rewritten its run_id to the
// other case, and its settings kept outside the store are the name's.
func TestRunInOtherCase(t *testing.T) {
	s := &Store{Root: filepath.Join(t.TempDir(), ".loop")}
	if err := s.CreateRun(NewRun("Foo", "Foo", 1)); err != nil {
		t.Fatal(err)
	}
	foldCase(t)
	if err := s.FindRun("Foo"); err != nil {
		t.Fatal(err)
	}
	err := s.FindRun("foo")
	if !errors.Is(err, ErrNoSuchRun) || !strings.Contains(err.Error(), "the run is Foo") {
		t.Errorf("FindRun(foo): %v", err)
	}
}
