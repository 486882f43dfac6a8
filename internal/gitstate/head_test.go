package gitstate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHeadCommitAsGit: HeadCommit answers as `git rev-parse --verify -q
// HEAD` does on every shape HEAD takes: a branch with a loose ref, a
// packed ref, a detached HEAD, an unborn branch, a linked worktree (its
// own HEAD, the common refs), a ref file that is not a hash. Where the
// files answer, no git runs (headFromFiles says ok).
func TestHeadCommitAsGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip(err)
	}
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	want := func(dir string) string {
		out, _ := exec.Command("git", "-C", dir, "rev-parse", "--verify", "-q", "HEAD").Output()
		return strings.TrimSpace(string(out))
	}
	same := func(name, dir string, fromFiles bool) {
		t.Helper()
		if got, w := HeadCommit(dir), want(dir); got != w {
			t.Errorf("%s: HeadCommit = %q, git says %q", name, got, w)
		}
		if _, ok := headFromFiles(dir); ok != fromFiles {
			t.Errorf("%s: answered from the files: %v, want %v", name, ok, fromFiles)
		}
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	git(repo, "init", "-q")
	same("unborn branch", repo, false)
	os.WriteFile(filepath.Join(repo, "a"), []byte("a"), 0o644)
	git(repo, "add", "-A")
	git(repo, "commit", "-qm", "one")
	same("loose ref", repo, true)
	git(repo, "pack-refs", "--all")
	same("packed ref", repo, true)
	git(repo, "commit", "-qm", "two", "--allow-empty")
	same("loose ref over a packed one", repo, true)
	git(repo, "checkout", "-q", "--detach", "HEAD~1")
	same("detached", repo, true)
	git(repo, "checkout", "-q", "main")
	wt := filepath.Join(root, "wt")
	git(repo, "worktree", "add", "-q", "-b", "side", wt, "HEAD~1")
	same("linked worktree", wt, true)
	git(wt, "commit", "-qm", "three", "--allow-empty")
	same("linked worktree after a commit", wt, true)
	same("main worktree beside it", repo, true)
	mainHead := want(repo)
	// a caller's GIT_DIR (a hook's) names another repository: HEAD is
	// still the work tree's, from the files or from git
	t.Setenv("GIT_DIR", filepath.Join(root, "elsewhere"))
	if got := HeadCommit(repo); got != mainHead {
		t.Errorf("GIT_DIR set: HeadCommit = %q, want %q", got, mainHead)
	}
	os.WriteFile(filepath.Join(repo, ".git", "refs", "heads", "main"), []byte("ref: refs/heads/side\n"), 0o644)
	viaGit := HeadCommit(repo) // asks git
	os.Unsetenv("GIT_DIR")
	if w := want(repo); viaGit != w || w == "" {
		t.Errorf("GIT_DIR set, HEAD through a symbolic ref: HeadCommit = %q, want %q", viaGit, w)
	}
	same("a symbolic ref under a branch", repo, false)
}
