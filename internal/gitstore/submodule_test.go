package gitstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A repository nested in the work tree (a submodule, or one the agent
// made) has a config of its own, which no hash of loopkit's covers: git
// add would run its fsmonitor and clean filter in a `git status` of the
// nested repository. The snapshots run neither, and still record the
// nested repository's HEAD.
func TestNestedRepoConfigRunsNothing(t *testing.T) {
	repo := committedRepo(t, "a\n")
	nested := filepath.Join(repo, "nested")
	os.Mkdir(nested, 0o755)
	run(t, nested, "git", "init", "-q")
	write(t, nested, ".gitattributes", "* filter=evil\n", 0o644)
	commit(t, nested, "x.txt", "x\n")
	run(t, repo, "git", "add", "-A")
	run(t, repo, "git", "commit", "-qm", "nested")

	tmp := t.TempDir()
	marker := filepath.Join(tmp, "ran")
	write(t, tmp, "evil.sh", "echo \"$1\" >> "+marker+"\n[ \"$1\" = fsmonitor ] && exit 1\ncat\n", 0o755)
	evil := "sh " + filepath.Join(tmp, "evil.sh")
	run(t, nested, "git", "config", "core.fsmonitor", evil+" fsmonitor")
	run(t, nested, "git", "config", "filter.evil.clean", evil+" clean")
	write(t, nested, "x.txt", "y\n", 0o644) // dirty: git status compares it
	write(t, repo, "a.txt", "b\n", 0o644)
	// an intent-to-add entry: the Go index reader leaves this index to git
	write(t, repo, "n.txt", "n\n", 0o644)
	run(t, repo, "git", "add", "-N", "n.txt")

	where, err := Locate(repo)
	if err != nil {
		t.Fatal(err)
	}
	odb := filepath.Join(t.TempDir(), "odb")
	if _, _, _, err := Base(repo, odb, "", nil); err != nil {
		t.Fatal(err)
	}
	r, _, err := AfterStep(filepath.Join(t.TempDir(), "r"), where, odb, "")
	if err != nil {
		t.Fatal(err)
	}
	ran := func(when string) {
		t.Helper()
		if data, _ := os.ReadFile(marker); len(data) > 0 {
			t.Errorf("%s: the nested repository's config ran: %q", when, data)
		}
	}
	ran("first snapshots")
	write(t, nested, "x.txt", "v\n", 0o644)
	if _, err := r.Snapshot(where); err != nil {
		t.Fatal(err)
	}
	ran("snapshot of a dirty nested repository")
	commit(t, nested, "x.txt", "z\n") // the nested HEAD moves (the test's git runs them)
	write(t, nested, "x.txt", "w\n", 0o644)
	os.Remove(marker)
	tree, err := r.Snapshot(where)
	if err != nil {
		t.Fatal(err)
	}
	ran("snapshot after the nested HEAD moved")
	head := strings.TrimSpace(run(t, nested, "git", "rev-parse", "HEAD"))
	ls := run(t, repo, "git", "--git-dir", r.GitDir, "ls-tree", tree, "nested")
	if !strings.Contains(ls, "160000 commit "+head) {
		t.Errorf("nested recorded as %q, want its HEAD %s", ls, head)
	}
}

// A submodule whose .gitmodules entry the person (or the agent) edited and
// did not stage is an ordinary dirty tree: dropping its gitlink from the
// snapshot's index must not trip git rm's "please stage your changes to
// .gitmodules", which lost the base and every later snapshot.
func TestSnapshotWithUnstagedGitmodules(t *testing.T) {
	sub := committedRepo(t, "s\n")
	repo := committedRepo(t, "a\n")
	run(t, repo, "git", "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "lib")
	run(t, repo, "git", "commit", "-qm", "sub")
	run(t, repo, "git", "config", "-f", ".gitmodules", "submodule.lib.branch", "main")

	where, err := Locate(repo)
	if err != nil {
		t.Fatal(err)
	}
	odb := filepath.Join(t.TempDir(), "odb")
	if _, _, _, err := Base(repo, odb, "", nil); err != nil {
		t.Fatalf("base: %v", err)
	}
	r, _, err := AfterStep(filepath.Join(t.TempDir(), "r"), where, odb, "")
	if err != nil {
		t.Fatal(err)
	}
	// the agent adds a second submodule: .gitmodules changes again
	run(t, repo, "git", "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "lib2")
	tree, err := r.Snapshot(where)
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	ls := run(t, repo, "git", "--git-dir", r.GitDir, "ls-tree", "--name-only", tree)
	if !strings.Contains(ls, "lib2") || !strings.Contains(ls, ".gitmodules") {
		t.Errorf("tree holds %q, want .gitmodules, lib and lib2", ls)
	}
}
