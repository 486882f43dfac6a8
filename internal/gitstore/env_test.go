package gitstore

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// What a caller's git exports to the commands it runs (a hook's
// GIT_INDEX_FILE, a pre-receive quarantine's GIT_OBJECT_DIRECTORY, git
// --git-dir's GIT_DIR, ...) steers none of loopkit's git: a run's trees are
// the workspace's, its private store gets them, and neither the user's
// repository nor the one the variables name gets anything.
func TestCallersGitEnvironmentSteersNothing(t *testing.T) {
	for _, name := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE",
		"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_PREFIX"} {
		t.Run(name, func(t *testing.T) {
			repo := committedRepo(t, "a\n")
			other := filepath.Join(t.TempDir(), "other")
			os.Mkdir(other, 0o755)
			run(t, other, "git", "init", "-q")
			commit(t, other, "o.txt", "other\n")
			quarantine := filepath.Join(t.TempDir(), "incoming")
			os.MkdirAll(filepath.Join(quarantine, "pack"), 0o755)
			value := map[string]string{
				"GIT_DIR": filepath.Join(other, ".git"), "GIT_WORK_TREE": other,
				"GIT_COMMON_DIR": filepath.Join(other, ".git"), "GIT_INDEX_FILE": filepath.Join(other, ".git", "index"),
				"GIT_OBJECT_DIRECTORY": quarantine, "GIT_ALTERNATE_OBJECT_DIRECTORIES": filepath.Join(other, ".git", "objects"),
				"GIT_NAMESPACE": "caller", "GIT_PREFIX": "sub/",
			}[name]
			write(t, repo, "a.txt", "dirty before the step\n", 0o644)
			before, beforeOther := untouched(t, repo), untouched(t, other)

			t.Setenv(name, value)
			store := t.TempDir()
			odb := filepath.Join(store, "spool", "1-2-ab.step.git")
			base, used, ok, err := Base(repo, odb, "", nil)
			if err != nil || !ok || !used {
				t.Fatalf("Base: %q used %v ok %v err %v", base, used, ok, err)
			}
			r, where, _ := importBase(t, repo, store, odb)
			write(t, repo, "b.txt", "from the agent\n", 0o644)
			tree, err := r.Snapshot(where)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.SetIteration(1, tree, base); err != nil {
				t.Fatal(err)
			}
			from, _ := r.Base(1)
			cs, err := r.Changes(from, tree)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := Paths(cs), []string{"b.txt"}; !reflect.DeepEqual(got, want) {
				t.Errorf("changes %q, want %q", got, want)
			}
			os.Unsetenv(name)

			if now := untouched(t, repo); refsAndObjects(now) != refsAndObjects(before) {
				t.Errorf("the user's repository changed:\n%s\nwas:\n%s", now, before)
			}
			if now := untouched(t, other); now != beforeOther {
				t.Errorf("the repository %s names changed:\n%s\nwas:\n%s", name, now, beforeOther)
			}
			if left, _ := os.ReadDir(quarantine); len(left) != 1 {
				t.Errorf("objects written to the caller's GIT_OBJECT_DIRECTORY: %v", left)
			}
		})
	}
}

// A git wrapper on PATH that prints to stdout (a banner, a shim's notice)
// is named as such, not taken for the work tree's paths.
func TestGitWrapperPrintingIsNamed(t *testing.T) {
	repo := committedRepo(t, "a\n")
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip(err)
	}
	bin := t.TempDir()
	write(t, bin, "git", "#!/bin/sh\necho 'wrapper says hi'\nexec "+real+" \"$@\"\n", 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if _, err := Locate(repo); err == nil || !strings.Contains(err.Error(), "a wrapper that prints to stdout") {
		t.Errorf("Locate under a printing wrapper: %v", err)
	}
}

// A person's core.safecrlf (with core.autocrlf, as Pro Git suggests) makes
// git add refuse a file whose line endings it would convert: the snapshot
// of an iteration whose agent wrote a CRLF file must still be recorded.
func TestSafeCRLFRecordsAnyway(t *testing.T) {
	for _, autocrlf := range []string{"input", "true"} {
		t.Run(autocrlf, func(t *testing.T) {
			repo := committedRepo(t, "a\n")
			write(t, filepath.Dir(repo), "gitconfig", "[core]\n\tautocrlf = "+autocrlf+"\n\tsafecrlf = true\n", 0o644)
			where, err := Locate(repo)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Create(filepath.Join(t.TempDir(), "runs", "r"), where.Objects)
			if err != nil {
				t.Fatal(err)
			}
			write(t, repo, "dos.txt", "one\r\ntwo\r\n", 0o644)
			write(t, repo, "unix.txt", "one\n", 0o644)
			tree, err := r.Snapshot(where)
			if err != nil {
				t.Fatal(err)
			}
			cs, err := r.Changes(where.HeadTree, tree)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := Paths(cs), []string{"dos.txt", "unix.txt"}; !reflect.DeepEqual(got, want) {
				t.Errorf("changes %q, want %q", got, want)
			}
		})
	}
}
