package gitstore

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The store's indexes (a run's git/index, a step base's in the spool) sit
// in the workspace when the store does: an agent that marks a file
// assume-unchanged there would have its change to that file missing from
// every snapshot. An index loopkit did not write is not used.
func TestPlantedIndexHidesNothing(t *testing.T) {
	repo := committedRepo(t, "a\n")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	where, err := Locate(repo)
	if err != nil {
		t.Fatal(err)
	}
	blob := func(text string) string {
		cmd := exec.Command("git", "hash-object", "--stdin")
		cmd.Stdin = strings.NewReader(text)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	hide := func(index string) {
		t.Helper()
		cmd := exec.Command("git", "update-index", "--assume-unchanged", "a.txt")
		// the step base's objects: an entry seal smudged is compared by content
		cmd.Dir, cmd.Env = repo, append(os.Environ(), "GIT_INDEX_FILE="+index, "GIT_ALTERNATE_OBJECT_DIRECTORIES="+filepath.Join(filepath.Dir(index), "objects"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v %s", err, out)
		}
	}
	recorded := func(r *Repo, tree string) string {
		t.Helper()
		return run(t, repo, "git", "--git-dir", r.GitDir, "rev-parse", tree+":a.txt")
	}
	// the step's base index in the spool, planted during the step
	odb := filepath.Join(t.TempDir(), "odb")
	write(t, repo, "a.txt", "b\n", 0o644)
	if _, _, _, err := Base(repo, odb, "", nil); err != nil {
		t.Fatal(err)
	}
	hide(filepath.Join(odb, "index"))
	write(t, repo, "a.txt", "cc\n", 0o644)
	r, tree, err := AfterStep(filepath.Join(t.TempDir(), "r"), where, odb, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(recorded(r, tree)); got != blob("cc\n") {
		t.Errorf("after a planted base index: a.txt recorded as %s, want %s", got, blob("cc\n"))
	}
	// the run's own index, planted between snapshots
	hide(filepath.Join(r.GitDir, "index"))
	write(t, repo, "a.txt", "ddd\n", 0o644)
	if tree, err = r.Snapshot(where); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(recorded(r, tree)); got != blob("ddd\n") {
		t.Errorf("after a planted run index: a.txt recorded as %s, want %s", got, blob("ddd\n"))
	}
}

// An empty folder (a new project: nothing but the store, outside git or
// just after git init) leaves no index after git add: there is nothing to
// seal, its base is the empty tree, and the first step's changes are
// recorded. (The seal's open failed there: the iteration had no base and
// no changes.patch.)
func TestEmptyFolderBase(t *testing.T) {
	for _, withGit := range []bool{false, true} {
		var dir string
		if withGit {
			dir = gitRepo(t)
		} else {
			dir = t.TempDir()
			t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(t.TempDir(), "gitconfig"))
			t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
		}
		t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
		runDir := filepath.Join(dir, StoreName, "runs", "r")
		if err := os.MkdirAll(runDir, 0o700); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, StoreName), ".gitignore", "*\n", 0o644)
		odb := filepath.Join(dir, StoreName, "spool", "s.git")
		base, _, ok, err := Base(dir, odb, runDir, nil)
		if err != nil || !ok || base == "" {
			t.Fatalf("git %v: base %q ok %v: %v", withGit, base, ok, err)
		}
		write(t, dir, "out", "hi\n", 0o644)
		where, err := LocateAny(dir)
		if err != nil {
			t.Fatal(err)
		}
		repo, tree, err := AfterStep(runDir, where, odb, "")
		if err != nil {
			t.Fatalf("git %v: after the step: %v", withGit, err)
		}
		if err := repo.SetIteration(1, tree, base); err != nil {
			t.Fatal(err)
		}
		cs, err := repo.Changes(base, tree)
		if got := Paths(cs); err != nil || !slices.Equal(got, []string{"out"}) {
			t.Errorf("git %v: changes %v (%v), want [out]", withGit, got, err)
		}
	}
}

// The agent can mark files assume-unchanged or skip-worktree in its own
// repository's index, a snapshot's seed (the run's first, or one after a
// clean base): git add would skip them whatever they hold. The marks are
// dropped from the store's copy; the user's index keeps them.
func TestMarkedSeedHidesNothing(t *testing.T) {
	for _, askGit := range []bool{false, true} {
		markedSeed(t, askGit)
	}
}

// markedSeed: askGit adds an intent-to-add entry, which the Go index
// reader leaves to git ls-files; c.txt is marked both ways.
func markedSeed(t *testing.T, askGit bool) {
	repo := committedRepo(t, "a\n")
	commit(t, repo, "b.txt", "b\n")
	commit(t, repo, "c.txt", "c\n")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	run(t, repo, "git", "update-index", "--assume-unchanged", "a.txt", "c.txt")
	run(t, repo, "git", "update-index", "--skip-worktree", "b.txt", "c.txt")
	write(t, repo, "c.txt", "changed c\n", 0o644)
	if askGit {
		write(t, repo, "n.txt", "n\n", 0o644)
		run(t, repo, "git", "add", "-N", "n.txt")
	}
	write(t, repo, "a.txt", "changed a\n", 0o644)
	write(t, repo, "b.txt", "changed b\n", 0o644)
	r, tree, _, _ := afterStep(t, repo)
	for name, text := range map[string]string{"a.txt": "changed a\n", "b.txt": "changed b\n", "c.txt": "changed c\n"} {
		got := strings.TrimSpace(run(t, repo, "git", "--git-dir", r.GitDir, "cat-file", "-p", tree+":"+name))
		if got != strings.TrimSpace(text) {
			t.Errorf("asking git %v: %s recorded as %q, want %q", askGit, name, got, text)
		}
	}
	if got := run(t, repo, "git", "ls-files", "-v"); !strings.Contains(got, "h a.txt") || !strings.Contains(got, "S b.txt") {
		t.Errorf("the user's index lost its marks: %q", got)
	}
}

// git reads an index without checking its trailing checksum (only fsck
// does), and with index.skipHash (feature.manyFiles, git 2.40) there is
// none: an index the agent rewrites in place, same size, same last bytes,
// still matched a seal of its size and tail. The step base's index in the
// spool, given a.txt's new stat data over its old blob that way, hid the
// step's edit from the snapshot.
func TestIndexForgedInPlaceHidesNothing(t *testing.T) {
	repo := committedRepo(t, "a\n")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	where, err := Locate(repo)
	if err != nil {
		t.Fatal(err)
	}
	odb := filepath.Join(t.TempDir(), "odb")
	write(t, repo, "b.txt", "dirty\n", 0o644) // a dirty base keeps its index
	if _, used, _, err := Base(repo, odb, "", nil); err != nil || !used {
		t.Fatalf("base: used %v, %v", used, err)
	}
	index := filepath.Join(odb, "index")
	write(t, repo, "a.txt", "B\n", 0o644) // the step's edit, same size
	forgeInPlace(t, index, repo, "a.txt")
	r, tree, err := AfterStep(filepath.Join(t.TempDir(), "r"), where, odb, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := run(t, repo, "git", "--git-dir", r.GitDir, "cat-file", "blob", tree+":a.txt"); got != "B\n" {
		t.Errorf("a.txt recorded as %q, on disk \"B\\n\"", got)
	}
	// a store index without a checksum (skipHash) is never sealed
	data, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	clear(data[len(data)-20:])
	if err := os.WriteFile(index, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := seal(index); err != nil || sealed(index) {
		t.Errorf("an index with a null checksum: sealed %v (%v)", sealed(index), err)
	}
}

// forgeInPlace gives name's entry of the (version 2) index the stat data
// of the file in repo, in place: the index keeps its size, extensions and
// checksum, now wrong.
func forgeInPlace(t *testing.T, index, repo, name string) {
	t.Helper()
	data, err := os.ReadFile(index)
	if err != nil || string(data[:4]) != "DIRC" || binary.BigEndian.Uint32(data[4:8]) != 2 {
		t.Fatalf("index: %v", err)
	}
	var st unix.Stat_t
	if err := unix.Stat(filepath.Join(repo, name), &st); err != nil {
		t.Fatal(err)
	}
	tail := slices.Clone(data[len(data)-32:])
	off, found := 12, false
	for range int(binary.BigEndian.Uint32(data[8:12])) {
		nl := int(binary.BigEndian.Uint16(data[off+60:]) & 0xfff)
		if string(data[off+62:off+62+nl]) == name {
			for i, v := range []int64{st.Ctim.Sec, st.Ctim.Nsec, st.Mtim.Sec, st.Mtim.Nsec, int64(st.Dev), int64(st.Ino), 0o100644, int64(st.Uid), int64(st.Gid), st.Size} {
				binary.BigEndian.PutUint32(data[off+4*i:], uint32(v))
			}
			found = true
		}
		off += (62 + nl + 8) &^ 7
	}
	if !found || !slices.Equal(tail, data[len(data)-32:]) {
		t.Fatalf("%s: entry %s found %v, tail kept %v", index, name, found, slices.Equal(tail, data[len(data)-32:]))
	}
	if err := os.WriteFile(index, data, 0o600); err != nil {
		t.Fatal(err)
	}
	future := time.Now().Add(time.Hour) // not racily clean
	os.Chtimes(index, future, future)
	cmd := exec.Command("git", "diff", "--name-only")
	// the step base's objects: an entry seal smudged is compared by content
	cmd.Dir, cmd.Env = repo, append(os.Environ(), "GIT_INDEX_FILE="+index, "GIT_ALTERNATE_OBJECT_DIRECTORIES="+filepath.Join(filepath.Dir(index), "objects"))
	if out, err := cmd.Output(); err != nil || strings.Contains(string(out), name) {
		t.Fatalf("the forgery does not hold (git sees %q, %v): the test proves nothing", out, err)
	}
}

// An index's seal is rewritten in place: a new file renamed over it
// created and freed an inode at each record (on ext4 without a journal,
// each later file created scans past a freed one for 30 s). Never through
// a link the agent planted: a hard link to a file of the person's, or a
// symlink, is replaced by a file of the seal's own, the target untouched.
func TestSealRewrittenInPlace(t *testing.T) {
	repo := committedRepo(t, "a\n")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	index := filepath.Join(t.TempDir(), "index")
	data, err := os.ReadFile(filepath.Join(repo, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(index, data, 0o600)
	ino := func() uint64 {
		var st unix.Stat_t
		if err := unix.Lstat(index+macSuffix, &st); err != nil {
			t.Fatal(err)
		}
		return st.Ino
	}
	if err := seal(index); err != nil || !sealed(index) {
		t.Fatalf("seal: sealed %v, %v", sealed(index), err)
	}
	first := ino()
	commit(t, repo, "b.txt", "b\n") // another index: another seal
	if data, err = os.ReadFile(filepath.Join(repo, ".git", "index")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(index, data, 0o600)
	if sealed(index) {
		t.Fatal("the old seal holds for another index")
	}
	if err := seal(index); err != nil || !sealed(index) {
		t.Fatalf("seal again: sealed %v, %v", sealed(index), err)
	}
	if got := ino(); got != first {
		t.Errorf("the seal is a new file (inode %d, was %d): it was not rewritten in place", got, first)
	}
	outside := filepath.Join(t.TempDir(), "persons-file")
	for _, plant := range []func() error{
		func() error { return os.Link(outside, index+macSuffix) },
		func() error { return os.Symlink(outside, index+macSuffix) },
	} {
		os.WriteFile(outside, []byte("keep"), 0o600)
		os.Remove(index + macSuffix)
		if err := plant(); err != nil {
			t.Fatal(err)
		}
		if err := seal(index); err != nil || !sealed(index) {
			t.Errorf("seal over a planted link: sealed %v, %v", sealed(index), err)
		}
		if b, _ := os.ReadFile(outside); string(b) != "keep" {
			t.Errorf("the link's target was written: %q", b)
		}
	}
}
