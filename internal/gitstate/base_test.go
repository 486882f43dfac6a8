package gitstate

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(dir, "gitconfig"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, kv := range []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x"} {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	repo := filepath.Join(dir, "repo")
	os.Mkdir(repo, 0o755)
	run(t, repo, "git", "init", "-q")
	return repo
}

func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return string(out)
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The step's changes: a file the agent committed, a file it left
// untracked and one it modified count; files that were already dirty or
// untracked before the step and left alone do not.
func TestChangedSinceBase(t *testing.T) {
	repo := gitRepo(t)
	write(t, repo, "a.txt", "a\n")
	write(t, repo, "b.txt", "b\n")
	run(t, repo, "git", "add", ".")
	run(t, repo, "git", "commit", "-qm", "init")
	write(t, repo, "b.txt", "b dirty before the step\n")
	write(t, repo, "u.txt", "untracked before the step\n")
	run(t, repo, "git", "add", "b.txt") // staged: the user's index must stay as it is
	indexBefore := run(t, repo, "git", "diff", "--cached", "--name-only")

	base, ok, err := Base(repo)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if head := strings.TrimSpace(run(t, repo, "git", "rev-parse", "HEAD")); base == head {
		t.Fatal("dirty tree: base must not be HEAD")
	}
	if got := run(t, repo, "git", "diff", "--cached", "--name-only"); got != indexBefore {
		t.Errorf("user's index changed: %q, was %q", got, indexBefore)
	}

	write(t, repo, "c.txt", "committed by the agent\n")
	run(t, repo, "git", "add", "c.txt")
	run(t, repo, "git", "commit", "-qm", "agent")
	write(t, repo, "n.txt", "new and untracked\n")
	write(t, repo, "a.txt", "a changed\n")

	files, patch, err := ChangedSince(filepath.Join(repo), base)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.txt", "c.txt", "n.txt"}; !reflect.DeepEqual(files, want) {
		t.Errorf("files %q, want %q", files, want)
	}
	for _, s := range []string{"+a changed", "+committed by the agent", "+new and untracked"} {
		if !strings.Contains(string(patch), s) {
			t.Errorf("patch lacks %q:\n%s", s, patch)
		}
	}
}

func TestBaseCleanIsHead(t *testing.T) {
	repo := gitRepo(t)
	write(t, repo, "a.txt", "a\n")
	run(t, repo, "git", "add", ".")
	run(t, repo, "git", "commit", "-qm", "init")
	sub := filepath.Join(repo, "sub")
	os.Mkdir(sub, 0o755)
	base, ok, err := Base(sub)
	if err != nil || !ok || base != strings.TrimSpace(run(t, repo, "git", "rev-parse", "HEAD")) {
		t.Fatalf("base %q ok %v err %v", base, ok, err)
	}
	files, patch, err := ChangedSince(sub, base)
	if err != nil || len(files) != 0 || len(patch) != 0 {
		t.Errorf("files %q patch %q err %v", files, patch, err)
	}
}

func TestBaseNoCommitYet(t *testing.T) {
	repo := gitRepo(t)
	write(t, repo, "old.txt", "before\n")
	base, ok, err := Base(repo)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	write(t, repo, "new.txt", "after\n")
	files, _, err := ChangedSince(repo, base)
	if err != nil || !reflect.DeepEqual(files, []string{"new.txt"}) {
		t.Errorf("files %q err %v", files, err)
	}
}

func TestBaseOutsideGit(t *testing.T) {
	t.Setenv("GIT_CEILING_DIRECTORIES", os.TempDir())
	if _, ok, err := Base(t.TempDir()); ok || err != nil {
		t.Errorf("ok %v err %v", ok, err)
	}
}
