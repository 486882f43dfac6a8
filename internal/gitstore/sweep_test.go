package gitstore

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// SweepTemp lists again only the fan-out directories changed since it
// found none in them: a temporary object made in one it knew is removed
// (the file changes the directory's time), one behind a directory time
// put back is left (the list was skipped), and found once the time moves.
func TestSweepTempListsChangedDirs(t *testing.T) {
	run := t.TempDir()
	objects := filepath.Join(run, Dir, "objects")
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, d := range []string{"ab", "cd"} {
		os.MkdirAll(filepath.Join(objects, d), 0o700)
		os.WriteFile(filepath.Join(objects, d, "00000000000000000000000000000000000000"), nil, 0o400)
		if err := os.Chtimes(filepath.Join(objects, d), old, old); err != nil {
			t.Fatal(err)
		}
	}
	SweepTemp(run) // knows both now
	plant := func(d string) string {
		p := filepath.Join(objects, d, "tmp_obj_Xy12Zq")
		if err := os.WriteFile(p, []byte("half an object"), 0o444); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gone := func(p string) bool { _, err := os.Lstat(p); return os.IsNotExist(err) }

	ab := plant("ab")
	SweepTemp(run)
	if !gone(ab) {
		t.Errorf("a temporary object made in a known directory stayed: %s", ab)
	}
	cd := plant("cd")
	os.Chtimes(filepath.Join(objects, "cd"), old, old)
	SweepTemp(run)
	if gone(cd) {
		t.Fatalf("a directory whose time did not change was listed again: the sweep keeps nothing")
	}
	now := time.Now()
	os.Chtimes(filepath.Join(objects, "cd"), now, now)
	SweepTemp(run)
	if !gone(cd) {
		t.Errorf("a temporary object stayed once its directory's time moved: %s", cd)
	}
}
