package gitstore

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// A folder outside git is snapshotted through loopkit's own index: the
// step's base, the tree after it, the change between them and a checkout
// work as in a repository, the store left out. (Issue 24: every iteration
// said "0 files".)
func TestPlainFolder(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(t.TempDir(), "gitconfig"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	write(t, dir, "a.txt", "one\n", 0o644)
	runDir := filepath.Join(dir, StoreName, "runs", "r")
	spool := filepath.Join(dir, StoreName, "spool")
	if err := os.MkdirAll(runDir, 0o700); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(spool, 0o700)
	write(t, filepath.Join(dir, StoreName), "secret", "never in a tree\n", 0o600)

	step := func(n int, edit func()) []string {
		t.Helper()
		odb := filepath.Join(spool, "s.git")
		base, used, ok, err := Base(dir, odb, runDir, nil)
		if err != nil || !ok || !used || base == "" {
			t.Fatalf("base %q used %v ok %v: %v", base, used, ok, err)
		}
		edit()
		where, err := LocateAny(dir)
		if err != nil || !where.Plain {
			t.Fatalf("LocateAny: %+v %v", where, err)
		}
		repo, tree, err := AfterStep(runDir, where, odb)
		if err != nil {
			t.Fatal(err)
		}
		os.RemoveAll(odb)
		if err := repo.SetIteration(n, tree, base); err != nil {
			t.Fatal(err)
		}
		cs, err := repo.Changes(base, tree)
		if err != nil {
			t.Fatal(err)
		}
		return Paths(cs)
	}
	if got := step(1, func() {
		write(t, dir, "a.txt", "one\ntwo\n", 0o644)
		write(t, dir, "b.txt", "new\n", 0o644)
	}); !reflect.DeepEqual(got, []string{"a.txt", "b.txt"}) {
		t.Errorf("iteration 1 changed %v", got)
	}
	// the second step starts from the run's own index (its stat cache)
	if got := step(2, func() { os.Remove(filepath.Join(dir, "b.txt")) }); !reflect.DeepEqual(got, []string{"b.txt"}) {
		t.Errorf("iteration 2 changed %v", got)
	}
	repo, err := Open(runDir)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := repo.Tree(1)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "co")
	if err := repo.Checkout(tree, out); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(out)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if !reflect.DeepEqual(names, []string{"a.txt", "b.txt"}) {
		t.Errorf("checkout holds %v", names)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		t.Error("the folder became a repository")
	}
}

// A repository git refuses is not taken for a plain folder.
func TestLocateAnyKeepsRepositories(t *testing.T) {
	repo := gitRepo(t)
	os.WriteFile(filepath.Join(repo, ".git", "HEAD"), []byte("garbage"), 0o644)
	if w, err := LocateAny(repo); err == nil {
		t.Errorf("a broken repository located as %+v", w)
	}
}
