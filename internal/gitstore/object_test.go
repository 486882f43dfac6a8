package gitstore

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// A commit written without git is the one `git commit-tree` writes for the
// same tree, parent, identity, time and message, and git reads it back.
func TestWriteCommitAsGitDoes(t *testing.T) {
	repo := gitRepo(t)
	write(t, repo, "a.txt", "a\n", 0o644)
	run(t, repo, "git", "add", ".")
	tree := strings.TrimSpace(run(t, repo, "git", "write-tree"))
	objects := filepath.Join(repo, ".git", "objects")
	when := time.Unix(1700000000, 0)
	gitCommit := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"commit-tree", tree, "-m", "the message"}, args...)...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=loopkit", "GIT_AUTHOR_EMAIL=loopkit@localhost",
			"GIT_COMMITTER_NAME=loopkit", "GIT_COMMITTER_EMAIL=loopkit@localhost")
		cmd.Env = append(cmd.Env, "GIT_AUTHOR_DATE=@1700000000 +0000", "GIT_COMMITTER_DATE=@1700000000 +0000")
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	want := gitCommit()
	got, err := writeCommit(objects, tree, "", "the message", when)
	if err != nil || got != want {
		t.Fatalf("root commit %q, %v; git wrote %q", got, err, want)
	}
	want = gitCommit("-p", got)
	got2, err := writeCommit(objects, tree, got, "the message", when)
	if err != nil || got2 != want {
		t.Fatalf("commit with a parent %q, %v; git wrote %q", got2, err, want)
	}
	// written by us alone, read back by git
	fresh := gitRepo(t)
	run(t, fresh, "git", "mktree") // the empty tree, as an object
	second, err := writeCommit(filepath.Join(fresh, ".git", "objects"), "4b825dc642cb6eb9a060e54bf8d69288fbee4904", "", "empty", when)
	if err != nil {
		t.Fatal(err)
	}
	run(t, fresh, "git", "update-ref", "refs/heads/x", second)
	if out := run(t, fresh, "git", "log", "--format=%an <%ae> %at %s", "x"); out != "loopkit <loopkit@localhost> 1700000000 empty\n" {
		t.Errorf("git log of our commit: %q", out)
	}
	run(t, fresh, "git", "fsck", "--strict", "--no-dangling")
	if left, _ := filepath.Glob(filepath.Join(fresh, ".git", "objects", "*", "tmp_obj_*")); len(left) > 0 {
		t.Errorf("temporary files left: %q", left)
	}
}

// The ids go into the object's text: anything but an object id (a line
// break that would add a header, a short id) is refused and writes nothing.
func TestWriteCommitRefusesBadIDs(t *testing.T) {
	objects := t.TempDir()
	tree := "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
	for _, tc := range [][2]string{
		{tree + "\nparent " + tree, ""},
		{tree, "abc"},
		{tree, tree + "\nauthor x"},
		{tree, strings.Repeat("a", 64)},
	} {
		if id, err := writeCommit(objects, tc[0], tc[1], "m", time.Now()); err == nil {
			t.Errorf("tree %q parent %q: wrote %s", tc[0], tc[1], id)
		}
	}
	if ents, _ := os.ReadDir(objects); len(ents) > 0 {
		t.Errorf("refused commits left %d entries", len(ents))
	}
}

// A fan-out directory replaced by a symlink is not written through.
func TestWriteCommitRefusesSymlinkedFanout(t *testing.T) {
	objects, outside := t.TempDir(), t.TempDir()
	tree := "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
	id, err := writeCommit(objects, tree, "", "m", time.Unix(1, 0))
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(objects, id[:2]))
	if err := os.Symlink(outside, filepath.Join(objects, id[:2])); err != nil {
		t.Fatal(err)
	}
	if _, err := writeCommit(objects, tree, "", "m", time.Unix(1, 0)); err == nil {
		t.Error("wrote through a symlinked fan-out directory")
	}
	if ents, _ := os.ReadDir(outside); len(ents) > 0 {
		t.Errorf("%d files written outside", len(ents))
	}
}

// Paths holding git's separator or its quote are quoted as git unquotes
// them.
func TestAlternates(t *testing.T) {
	got := alternates([]string{"/a/objects", `/b:c/"d"\e/objects`})
	if want := `/a/objects:"/b:c/\"d\"\\e/objects"`; got != want {
		t.Errorf("alternates = %s, want %s", got, want)
	}
}

// Objects are stored zlib streams (no compressor state to allocate):
// compress/zlib and git read them back whole, at every block boundary.
func TestZlibStoredRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 65534, 65535, 65536, 3*65535 + 7} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i*7 + i/251)
		}
		r, err := zlib.NewReader(bytes.NewReader(zlibStored(data)))
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes: read back %d bytes, %v", n, len(got), err)
		}
	}
	repo := gitRepo(t)
	big := bytes.Repeat([]byte("loopkit stores this object in three blocks\n"), 4000)
	id, err := writeLoose(filepath.Join(repo, ".git", "objects"), sha1.New(), "blob", big)
	if err != nil {
		t.Fatal(err)
	}
	if out := run(t, repo, "git", "cat-file", "-p", id); out != string(big) {
		t.Fatalf("git cat-file -p %s: %d bytes, want %d", id, len(out), len(big))
	}
	if want := strings.TrimSpace(run(t, repo, "sh", "-c", "git cat-file -p "+id+" | git hash-object --stdin")); want != id {
		t.Fatalf("git hashes the content as %s, we named it %s", want, id)
	}
}

// Reading a loose object reuses a zlib reader (inflaters): a new one
// allocates ~40 KiB of tables, and a record reads several objects.
func TestLooseReadReusesInflater(t *testing.T) {
	objects := filepath.Join(t.TempDir(), "objects")
	if err := os.Mkdir(objects, 0o700); err != nil {
		t.Fatal(err)
	}
	id, err := writeLoose(objects, sha1.New(), "blob", []byte("some text\n"))
	if err != nil {
		t.Fatal(err)
	}
	db := &looseDB{dirs: []string{objects}}
	read := func() {
		kind, _, body, done, err := db.open(id)
		if err != nil || kind != "blob" {
			t.Fatalf("open: %q, %v", kind, err)
		}
		if b, _ := io.ReadAll(body); string(b) != "some text\n" {
			t.Fatalf("read %q", b)
		}
		done()
	}
	read()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const n = 50
	for range n {
		read()
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 20<<10 {
		t.Errorf("%d bytes allocated per object read, want under 20 KiB (a zlib reader made each time?)", per)
	}
}
