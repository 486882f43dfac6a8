package gitstore

import (
	"crypto/sha1"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// forgeIndex rewrites repo's index so that name's entry holds the stat
// data of the file on disk and the blob of fake, as an agent can: git
// then takes the file for unchanged and never reads it.
func forgeIndex(t *testing.T, repo, name, fake string) {
	t.Helper()
	id := strings.TrimSpace(run(t, repo, "sh", "-c", "printf %s '"+fake+"' | git hash-object -w --stdin"))
	run(t, repo, "git", "update-index", "--add", "--cacheinfo", "100644,"+id+","+name)
	path := filepath.Join(repo, ".git", "index")
	data, err := os.ReadFile(path)
	if err != nil || string(data[:4]) != "DIRC" || binary.BigEndian.Uint32(data[4:8]) != 2 {
		t.Fatalf("index: %v", err)
	}
	var st unix.Stat_t
	if err := unix.Stat(filepath.Join(repo, name), &st); err != nil {
		t.Fatal(err)
	}
	off, n := 12, int(binary.BigEndian.Uint32(data[8:12]))
	for range n {
		nl := int(binary.BigEndian.Uint16(data[off+60:]) & 0xfff)
		if string(data[off+62:off+62+nl]) == name {
			for i, v := range []int64{st.Ctim.Sec, st.Ctim.Nsec, st.Mtim.Sec, st.Mtim.Nsec, int64(st.Dev), int64(st.Ino), 0o100644, int64(st.Uid), int64(st.Gid), st.Size} {
				binary.BigEndian.PutUint32(data[off+4*i:], uint32(v))
			}
		}
		off += (62 + nl + 8) &^ 7
	}
	body := data[:off] // the extensions (a cache tree) go
	sum := sha1.Sum(body)
	if err := os.WriteFile(path, append(body, sum[:]...), 0o644); err != nil {
		t.Fatal(err)
	}
	future := time.Now().Add(time.Hour) // not racily clean
	os.Chtimes(path, future, future)
	if out := run(t, repo, "git", "diff", "--name-only"); out != "" {
		t.Fatalf("the forgery does not hold (git sees %q): the test proves nothing", out)
	}
}

// The agent can write its repository's index: an entry with a file's true
// stat data and another blob hides the file's content from git add. The
// run's first snapshot after a step (here after a clean base: no index of
// the step's) must not take that stat cache, or it records content that is
// not on disk, in that iteration and the ones after.
func TestForgedUserIndexFoolsNoSnapshot(t *testing.T) {
	repo := committedRepo(t, "a\n")
	write(t, repo, "a.txt", "real\n", 0o644)
	forgeIndex(t, repo, "a.txt", "fake\n")
	r, tree, where, runDir := afterStep(t, repo)
	if out, err := r.git().run("cat-file", "blob", tree+":a.txt"); err != nil || string(out) != "real\n" {
		t.Errorf("a.txt in the snapshot: %q, %v; on disk: \"real\\n\"", out, err)
	}
	// the agent deletes the run's index: the next base must not seed from
	// the forged one either
	os.Remove(filepath.Join(runDir, Dir, "index"))
	odb := filepath.Join(t.TempDir(), "odb")
	base, _, _, err := Base(repo, odb, runDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := gitCmd{dir: repo, env: []string{"GIT_OBJECT_DIRECTORY=" + filepath.Join(odb, "objects"),
		"GIT_ALTERNATE_OBJECT_DIRECTORIES=" + where.Objects}}.run("cat-file", "blob", base+":a.txt")
	if err != nil || string(out) != "real\n" {
		t.Errorf("a.txt in the next base: %q, %v", out, err)
	}
}

// afterStep is the first snapshot of repo after a step whose base was
// clean, in a new run directory.
func afterStep(t *testing.T, repo string) (r *Repo, tree string, where *Where, runDir string) {
	t.Helper()
	return afterStepIn(t, repo, filepath.Join(t.TempDir(), "r"))
}

// afterStepIn is afterStep in the run directory runDir.
func afterStepIn(t *testing.T, repo, runDir string) (r *Repo, tree string, where *Where, _ string) {
	t.Helper()
	where, err := Locate(repo)
	if err != nil {
		t.Fatal(err)
	}
	if r, tree, err = AfterStep(runDir, where, "", ""); err != nil {
		t.Fatal(err)
	}
	return r, tree, where, runDir
}

// The agent can point its work tree's .git at another repository (a
// linked worktree's `gitdir:` file rewritten): the step's base, HEAD of
// the real one, must still be found when the record diffs against it.
func TestBaseFoundAfterGitSwapped(t *testing.T) {
	repo := committedRepo(t, "a\n")
	wt := filepath.Join(t.TempDir(), "wt")
	run(t, repo, "git", "worktree", "add", "-q", "-b", "run", wt)
	runDir := t.TempDir() // the run's directory exists; its git/ not yet
	base, used, ok, err := Base(wt, filepath.Join(t.TempDir(), "odb"), runDir, nil)
	if err != nil || !ok || used {
		t.Fatalf("base %s, used %v, ok %v, %v", base, used, ok, err)
	}
	other := filepath.Join(t.TempDir(), "other")
	run(t, filepath.Dir(other), "git", "init", "-q", other)
	write(t, wt, ".git", "gitdir: "+filepath.Join(other, ".git")+"\n", 0o644)
	write(t, wt, "a.txt", "changed\n", 0o644)
	r, tree, _, _ := afterStepIn(t, wt, runDir)
	cs, err := r.Changes(base, tree)
	if err != nil {
		t.Fatal(err)
	}
	if paths := Paths(cs); !slices.Contains(paths, "a.txt") {
		t.Errorf("changes %v, want a.txt among them", paths)
	}
}
