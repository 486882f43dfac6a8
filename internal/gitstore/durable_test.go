package gitstore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/loopkit/loopkit/internal/wfile"
)

// The trees and commits loopkit writes for an iteration, and its ref, are
// fsynced with their directories before the commit line: a power cut
// otherwise left them empty under their names, and every later snapshot
// took a name that is there for the object, so the trees recorded after
// the reboot could not be checked out either (loop-view checkout: "object
// file ... is empty").
func TestIterationObjectsDurable(t *testing.T) {
	repo := committedRepo(t, "a\n")
	os.MkdirAll(filepath.Join(repo, "d", "e"), 0o755)
	write(t, repo, "d/e/b.txt", "new\n", 0o644)
	where, err := Locate(repo)
	if err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Join(t.TempDir(), "r")
	var mu sync.Mutex
	synced := map[string]bool{}
	defer wfile.SetFault(func(op wfile.Op, path string) error {
		mu.Lock()
		defer mu.Unlock()
		if op == wfile.Sync {
			synced[filepath.Clean(path)] = true
		}
		return nil
	})()
	r, tree, err := AfterStep(runDir, where, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SetIteration(1, tree, ""); err != nil {
		t.Fatal(err)
	}
	commit, err := r.Commit(1)
	if err != nil {
		t.Fatal(err)
	}
	objects := filepath.Join(r.GitDir, "objects")
	// the commit and every tree of the snapshot, loopkit's own objects
	ids := append([]string{commit}, strings.Fields(run(t, repo, "git", "--git-dir", r.GitDir, "rev-list", "--objects", "--no-object-names", "--filter=object:type=tree", commit))...)
	for _, id := range ids {
		if _, err := os.Lstat(filepath.Join(objects, id[:2], id[2:])); err != nil {
			continue // the user's, read through the alternate
		}
		if !synced[filepath.Join(objects, id[:2])] {
			t.Errorf("object %s: its directory was not fsynced", id)
		}
	}
	if !synced[filepath.Join(r.GitDir, "refs", "iterations", "1.lock")] || !synced[filepath.Join(r.GitDir, "refs", "iterations")] {
		t.Errorf("refs/iterations/1 was not fsynced with its directory: %v", synced)
	}
}

// A power cut soon after the run's git directory was made can leave its
// HEAD empty: git then takes it for no repository. The next writer writes
// it again, so the iterations after the reboot keep their trees.
func TestEmptyHeadRewritten(t *testing.T) {
	repo := committedRepo(t, "a\n")
	where, err := Locate(repo)
	if err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Join(t.TempDir(), "r")
	r, tree, err := AfterStep(runDir, where, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SetIteration(1, tree, ""); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(r.GitDir, "HEAD"), nil, 0o600)
	write(t, repo, "b.txt", "b\n", 0o644)
	r, tree, err = AfterStep(runDir, where, "", "")
	if err != nil {
		t.Fatalf("the snapshot after an empty HEAD: %v", err)
	}
	if err := r.SetIteration(2, tree, ""); err != nil {
		t.Fatal(err)
	}
	if got, err := r.Tree(2); err != nil || got != tree {
		t.Errorf("Tree(2) = %q, %v; want %s", got, err, tree)
	}
}

// A tree whose ref is there but whose objects git cannot read was kept,
// and is damaged: not ErrNoTree ("kept no tree"), but git's own words.
func TestDamagedTreeIsNotMissing(t *testing.T) {
	repo := committedRepo(t, "a\n")
	where, err := Locate(repo)
	if err != nil {
		t.Fatal(err)
	}
	r, tree, err := AfterStep(filepath.Join(t.TempDir(), "r"), where, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SetIteration(1, tree, ""); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(r.GitDir, "HEAD"), nil, 0o600)
	if _, err := r.Tree(1); err == nil || errors.Is(err, ErrNoTree) {
		t.Errorf("Tree(1) with an empty HEAD: %v, want a damaged tree", err)
	}
	if _, err := r.Tree(2); !errors.Is(err, ErrNoTree) {
		t.Errorf("Tree(2) never recorded: %v, want ErrNoTree", err)
	}
}
