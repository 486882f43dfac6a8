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

// A directory time of a fine clock (a fraction of a second) settles once
// well past a tick, not after 2 s: a run's quick iterations listed again
// every directory written in the last 2 s at each record. A time of
// whole seconds (a clock of seconds: HFS+, FAT) still waits 2 s.
func TestSweepTempFineClockSettles(t *testing.T) {
	run := t.TempDir()
	objects := filepath.Join(run, Dir, "objects")
	now := time.Now()
	fine := now.Add(-500 * time.Millisecond)
	if fine.Nanosecond() == 0 {
		fine = fine.Add(time.Millisecond)
	}
	whole := now.Add(-500 * time.Millisecond).Truncate(time.Second) // 0.5 to 1.5 s ago
	times := map[string]time.Time{"ab": fine, "cd": whole}
	for d, m := range times {
		os.MkdirAll(filepath.Join(objects, d), 0o700)
		if err := os.Chtimes(filepath.Join(objects, d), m, m); err != nil {
			t.Fatal(err)
		}
	}
	SweepTemp(run)
	planted := map[string]string{}
	for d, m := range times {
		planted[d] = filepath.Join(objects, d, "tmp_obj_Xy12Zq")
		if err := os.WriteFile(planted[d], []byte("half an object"), 0o444); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(filepath.Join(objects, d), m, m) // as if made in the same tick
	}
	SweepTemp(run)
	if _, err := os.Lstat(planted["ab"]); err != nil {
		t.Errorf("a directory whose fine time was 0.5 s old was listed again (the planted file is gone: %v)", err)
	}
	if _, err := os.Lstat(planted["cd"]); !os.IsNotExist(err) {
		t.Errorf("a directory whose whole-second time was under 2 s old was not listed again: %v", err)
	}
}

// A git add killed mid-batch (core.fsyncMethod=batch) leaves its objects in
// objects/tmp_objdir-bulk-fsync-*/, never moved in and never removed: the
// run's git directory grew by them for good. The sweep removes the folder;
// a link planted under that name goes as a link, its target stays.
func TestSweepTempRemovesBulkFsyncFolders(t *testing.T) {
	run := t.TempDir()
	objects := filepath.Join(run, Dir, "objects")
	bulk := filepath.Join(objects, "tmp_objdir-bulk-fsync-Ab12Cd")
	if err := os.MkdirAll(filepath.Join(bulk, "ab"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(bulk, "ab", "cdef0123"), []byte("an object never moved in"), 0o444)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "keep"), []byte("x"), 0o600)
	link := filepath.Join(objects, "tmp_objdir-bulk-fsync-Link00")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	SweepTemp(run)
	for _, p := range []string{bulk, link} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s stayed (%v)", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "keep")); err != nil {
		t.Errorf("the link's target was touched: %v", err)
	}
}
