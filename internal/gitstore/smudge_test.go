package gitstore

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// A file written again with its size and mtime kept (cp -p, tar, touch
// -r), in the second the last snapshot read it, differs from the index's
// stat data in its ctime alone, which git compares to the second: the
// iteration recorded it unchanged, and checkout gave back the old bytes.
func TestSameSizeSameMtimeEdit(t *testing.T) {
	dir, runDir, spool := plainFolder(t, "a\n")
	old := time.Unix(1_000_000_000, 0)
	edit := func(s string) {
		write(t, dir, "a.txt", s, 0o644)
		if err := os.Chtimes(filepath.Join(dir, "a.txt"), old, old); err != nil {
			t.Fatal(err)
		}
	}
	step := func(n int, s string) []string {
		t.Helper()
		odb := filepath.Join(spool, "s.git")
		base, _, _, err := Base(dir, odb, runDir, nil)
		if err != nil {
			t.Fatal(err)
		}
		edit(s)
		where, err := LocateAny(dir)
		if err != nil {
			t.Fatal(err)
		}
		repo, tree, err := AfterStep(runDir, where, odb, "")
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
	// both steps in one second, as a quick agent's are
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 10*time.Millisecond)))
	if got := step(1, "b\n"); !reflect.DeepEqual(got, []string{"a.txt"}) {
		t.Fatalf("iteration 1 changed %v", got)
	}
	if got := step(2, "c\n"); !reflect.DeepEqual(got, []string{"a.txt"}) {
		t.Errorf("iteration 2 changed %v, want [a.txt] (b -> c, same size and mtime)", got)
	}
}
