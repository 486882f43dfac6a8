package worktree

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/testsupport/otheruser"
)

// placeRepo makes a repository with one commit on trunk at dir.
func placeRepo(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "trunk"}, {"commit", "-q", "--allow-empty", "-m", "init"}} {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
}

// A template that puts the worktree where no folder can be made: the run
// was started, its branch made, and it failed (exit 3) with a hint to
// chmod; each retry left another run/<slug>-N. Now the start-up check
// names the place, and a Create that fails all the same leaves no branch.
func TestWorktreeNowhere(t *testing.T) {
	root := t.TempDir()
	top := filepath.Join(root, "calc")
	placeRepo(t, top)
	if err := os.WriteFile(filepath.Join(root, "file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s := Spec{Top: top, Base: "trunk", Prefix: DefaultPrefix, Slug: "fix", Template: "../file/{{ repo }}"}
	if err := Check(s); err == nil || !strings.Contains(err.Error(), filepath.Join(root, "file")+", which is not a folder: set worktree_path_template") {
		t.Errorf("Check = %v, want the file named", err)
	}
	if _, err := Create(s); err == nil {
		t.Fatal("Create made a worktree under a file")
	}
	if _, err := gitOut(top, "show-ref", "--verify", "--quiet", "refs/heads/run/fix"); err == nil {
		t.Error("the failed Create left branch run/fix")
	}
}

// childEnv, set, makes TestWorktreeInRootsFolder the child it starts as
// another user: it checks the repository the variable names.
const childEnv = "LOOPKIT_WORKTREE_CHILD"

// A user's repository in a folder of root's (/srv/app): the default
// template puts the worktree in /srv, which the user may not write. The
// run was refused only once its branch was made, with a hint to chmod
// root's folder; now the start-up check says whose it is and what to set.
func TestWorktreeInRootsFolder(t *testing.T) {
	if top := os.Getenv(childEnv); top != "" {
		err := Check(Spec{Top: top, Base: "trunk", Prefix: DefaultPrefix, Template: DefaultTemplate})
		io.WriteString(os.Stdout, "check: "+strings.ReplaceAll(errString(err), "\n", " ")+"\n")
		return
	}
	dir := otheruser.Reachable(t)
	team := filepath.Join(dir, "srv") // root's, 0755
	top := filepath.Join(team, "app")
	placeRepo(t, top)
	if os.Geteuid() == 0 {
		if err := exec.Command("chown", "-R", "4242:4242", top).Run(); err != nil {
			t.Skip("cannot chown:", err)
		}
	}
	out := otheruser.Rerun(t, childEnv+"="+top, "HOME="+top, "XDG_CONFIG_HOME="+top, "GIT_CONFIG_NOSYSTEM=1")
	want := `check: worktree_path_template "../{{ repo }}.{{ run_branch | sanitize }}" puts the run's worktree in ` + team +
		", which belongs to root (uid 0) and may not be written by uid 4242: set worktree_path_template (--worktree-path-template) to a folder you can write\n"
	if !strings.Contains(out, want) {
		t.Errorf("as uid 4242:\n%s\nwant %q", out, want)
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// gitOut runs git for the tests.
func gitOut(dir string, args ...string) ([]byte, error) {
	return exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
}
