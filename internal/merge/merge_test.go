package merge

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repo is a primary worktree on main with calc.go, a bare origin it was
// pushed to, and the run's worktree on run/feat where the agent changed
// calc.go without committing.
type repo struct {
	t                   *testing.T
	primary, wt, origin string
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	for k, v := range map[string]string{"GIT_CONFIG_GLOBAL": os.DevNull, "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"} {
		t.Setenv(k, v)
	}
	root := t.TempDir()
	r := &repo{t: t, primary: filepath.Join(root, "calc"), wt: filepath.Join(root, "calc.run-feat"), origin: filepath.Join(root, "origin.git")}
	os.MkdirAll(r.primary, 0o755)
	r.git(r.primary, "init", "-q", "-b", "main")
	r.write(r.primary, "calc.go", "package calc\n\nfunc Add(a, b int) int { return 0 } // BUG(add)\n")
	r.write(r.primary, "README", "calc\n")
	r.git(r.primary, "add", "-A")
	r.git(r.primary, "commit", "-q", "-m", "init")
	r.git(root, "init", "-q", "--bare", r.origin)
	r.git(r.primary, "remote", "add", "origin", r.origin)
	r.git(r.primary, "push", "-q", "origin", "main")
	r.git(r.primary, "worktree", "add", "-q", "-b", "run/feat", r.wt, "main")
	r.write(r.wt, "calc.go", "package calc\n\nfunc Add(a, b int) int { return a + b }\n")
	r.write(r.wt, "calc_test.go", "package calc\n")
	return r
}

func (r *repo) git(dir string, args ...string) string {
	r.t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *repo) write(dir, name, text string) {
	r.t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *repo) spec(strategy string) Spec {
	return Spec{Primary: r.primary, Worktree: r.wt, RunBranch: "run/feat", Target: "agent/feat", Base: "main",
		Strategy: strategy, Message: "loop: run feat-1", WorkMessage: "loop: work of run feat-1"}
}

// state is what must not move when a merge is refused or aborted.
func (r *repo) state() string {
	return strings.Join([]string{
		r.git(r.primary, "symbolic-ref", "--short", "HEAD"),
		r.git(r.primary, "status", "--porcelain", "--untracked-files=all"),
		r.git(r.primary, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads"),
		r.git(r.origin, "for-each-ref", "--format=%(refname) %(objectname)"),
	}, "\n")
}

func (r *repo) checkMerged(res *Result, parents int) {
	r.t.Helper()
	if got := r.git(r.primary, "symbolic-ref", "--short", "HEAD"); got != "agent/feat" {
		r.t.Errorf("checked out: %s, want agent/feat", got)
	}
	if got := r.git(r.primary, "rev-parse", "HEAD"); got != res.Commit {
		r.t.Errorf("HEAD %s, result says %s", got, res.Commit)
	}
	if got := r.git(r.primary, "show", "HEAD:calc.go"); !strings.Contains(got, "return a + b") {
		r.t.Errorf("the target lacks the run's change: %s", got)
	}
	if got := r.git(r.primary, "status", "--porcelain"); got != "" {
		r.t.Errorf("primary left dirty: %s", got)
	}
	if got := strings.Fields(r.git(r.primary, "rev-list", "--parents", "-n1", "HEAD")); len(got) != parents+1 {
		r.t.Errorf("merge commit has %d parents, want %d", len(got)-1, parents)
	}
	if got := r.git(r.primary, "log", "-1", "--format=%s"); got != "loop: run feat-1" {
		r.t.Errorf("message %q", got)
	}
	// the run branch holds the agent's work, committed once, and nothing was pushed
	if res.WorkCommit == "" || r.git(r.primary, "rev-parse", "run/feat") != res.WorkCommit {
		r.t.Errorf("run branch %s, work commit %q", r.git(r.primary, "rev-parse", "run/feat"), res.WorkCommit)
	}
	if got := r.git(r.origin, "for-each-ref", "--format=%(refname)"); got != "refs/heads/main" {
		r.t.Errorf("origin has %q: something was pushed", got)
	}
}

func TestMergeCreatesTarget(t *testing.T) {
	r := newRepo(t)
	res, err := Run(r.spec(Merge))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Created || res.UpToDate {
		t.Errorf("result %+v: want created, not up to date", res)
	}
	r.checkMerged(res, 2)
	if r.git(r.primary, "rev-parse", "HEAD^1") != r.git(r.primary, "rev-parse", "main") {
		t.Error("the target was not created from main")
	}
	// again (a driver killed after the merge, resumed): nothing new
	again, err := Run(r.spec(Merge))
	if err != nil || !again.UpToDate || again.Created || again.WorkCommit != "" || again.Commit != res.Commit {
		t.Errorf("second merge: %+v, %v", again, err)
	}
}

func TestSquashIntoExistingTarget(t *testing.T) {
	r := newRepo(t)
	r.git(r.primary, "branch", "agent/feat")
	r.git(r.primary, "checkout", "-q", "agent/feat")
	r.write(r.primary, "README", "calc, meanwhile\n")
	r.git(r.primary, "commit", "-q", "-am", "meanwhile")
	r.git(r.primary, "checkout", "-q", "main")
	res, err := Run(r.spec(Squash))
	if err != nil {
		t.Fatal(err)
	}
	if res.Created {
		t.Error("an existing target reported created")
	}
	r.checkMerged(res, 1)
	if got := r.git(r.primary, "log", "--format=%s", "HEAD~1..HEAD"); got != "loop: run feat-1" {
		t.Errorf("squash made %q, want one commit", got)
	}
	if got := r.git(r.primary, "show", "HEAD:README"); got != "calc, meanwhile" {
		t.Errorf("target's own commit lost: %q", got)
	}
	if _, err := os.Stat(filepath.Join(r.primary, ".git", "SQUASH_MSG")); err == nil {
		t.Error("SQUASH_MSG left behind")
	}
	again, err := Run(r.spec(Squash))
	if err != nil || !again.UpToDate || again.Commit != res.Commit {
		t.Errorf("second squash: %+v, %v", again, err)
	}
}

func TestConflictIsAborted(t *testing.T) {
	for _, strategy := range []string{Merge, Squash} {
		t.Run(strategy, func(t *testing.T) {
			r := newRepo(t)
			r.git(r.primary, "branch", "agent/feat")
			r.git(r.primary, "checkout", "-q", "agent/feat")
			r.write(r.primary, "calc.go", "package calc\n\nfunc Add(a, b int) int { return b + a }\n")
			r.git(r.primary, "commit", "-q", "-am", "a rival fix")
			r.git(r.primary, "checkout", "-q", "main")
			r.write(r.primary, "notes.txt", "untracked, kept\n")
			// the run's work is committed first: that is the state to compare with
			r.git(r.wt, "add", "-A")
			r.git(r.wt, "commit", "-q", "-m", "the agent's work")
			before := r.state()
			_, err := Run(r.spec(strategy))
			var me *Error
			if !errors.As(err, &me) || me.Kind != KindConflict || strings.Join(me.Paths, ",") != "calc.go" {
				t.Fatalf("err = %v, want a conflict in calc.go", err)
			}
			if !strings.Contains(err.Error(), "conflicts in calc.go") || !strings.Contains(err.Error(), "run/feat is intact") {
				t.Errorf("message: %v", err)
			}
			if after := r.state(); after != before {
				t.Errorf("primary changed:\n%s\nwant\n%s", after, before)
			}
			for _, f := range []string{"MERGE_HEAD", "SQUASH_MSG", "MERGE_MSG"} {
				if exists(filepath.Join(r.primary, ".git", f)) {
					t.Errorf("%s left behind", f)
				}
			}
		})
	}
}

func TestDirtyPrimaryIsRefused(t *testing.T) {
	r := newRepo(t)
	r.write(r.primary, "README", "edited by a person\n")
	before := r.state()
	_, err := Run(r.spec(Squash))
	var me *Error
	if !errors.As(err, &me) || me.Kind != KindDirty || strings.Join(me.Paths, ",") != "README" {
		t.Fatalf("err = %v, want dirty README", err)
	}
	if !strings.Contains(err.Error(), "has uncommitted changes (README): commit or stash them, then resume") {
		t.Errorf("message: %v", err)
	}
	if after := r.state(); after != before {
		t.Errorf("primary changed:\n%s\nwant\n%s", after, before)
	}
	// a merge left half done by a person is refused too
	r.git(r.primary, "checkout", "-q", "README")
	os.WriteFile(filepath.Join(r.primary, ".git", "MERGE_HEAD"), []byte(r.git(r.primary, "rev-parse", "HEAD")+"\n"), 0o644)
	if _, err := Run(r.spec(Squash)); !errors.As(err, &me) || me.Kind != KindDirty || !strings.Contains(err.Error(), "in progress") {
		t.Errorf("merge in progress: %v", err)
	}
}

func TestUntrackedInTheWayRestoresPrimary(t *testing.T) {
	r := newRepo(t)
	r.write(r.primary, "calc_test.go", "a person's own file\n") // the run adds calc_test.go
	before := r.state()
	_, err := Run(r.spec(Merge))
	var me *Error
	if !errors.As(err, &me) || me.Kind != KindUntracked || strings.Join(me.Paths, ",") != "calc_test.go" {
		t.Fatalf("err = %v, want the refusal naming calc_test.go", err)
	}
	// the run's work was committed on its branch (so refs differ); the
	// primary is as it was: on main, the same files, no target left
	mainWas := r.git(r.primary, "rev-parse", "main")
	if got := r.git(r.primary, "symbolic-ref", "--short", "HEAD"); got != "main" {
		t.Errorf("checked out %s after the refusal", got)
	}
	if got := r.git(r.primary, "status", "--porcelain", "--untracked-files=all"); got != "?? calc_test.go" {
		t.Errorf("status %q", got)
	}
	if got := r.git(r.primary, "branch", "--list", "agent/feat"); got != "" {
		t.Errorf("the target made for the merge is left: %q", got)
	}
	if !strings.Contains(before, "refs/heads/main "+mainWas) {
		t.Error("main moved")
	}
	if got, _ := os.ReadFile(filepath.Join(r.primary, "calc_test.go")); string(got) != "a person's own file\n" {
		t.Errorf("the person's file: %q", got)
	}
}

func TestRunWorktreeOnAnotherBranch(t *testing.T) {
	r := newRepo(t)
	r.git(r.wt, "checkout", "-q", "-b", "elsewhere")
	_, err := Run(r.spec(Merge))
	if err == nil || !strings.Contains(err.Error(), "is on elsewhere, not on its branch run/feat") {
		t.Errorf("err = %v", err)
	}
}

// A primary whose index another git holds (a person's editor open on
// `git commit`) is refused before anything moves, in one line naming the
// lock: git's own refusal came mid-merge as a page of text, with "undoing
// it failed" after it (the undo needs the same lock).
func TestLockedPrimaryIsRefused(t *testing.T) {
	r := newRepo(t)
	lock := filepath.Join(r.primary, ".git", "index.lock")
	os.WriteFile(lock, nil, 0o644)
	before := r.state()
	_, err := Run(r.spec(Squash))
	var me *Error
	if !errors.As(err, &me) || me.Kind != KindDirty {
		t.Fatalf("err = %v, want dirty", err)
	}
	want := "primary worktree " + r.primary + " is locked by another git (" + lock + " exists): " +
		"let it finish (an editor open on a commit?), or remove the file if no git runs, then resume"
	if err.Error() != want {
		t.Errorf("message:\n%v\nwant\n%s", err, want)
	}
	if after := r.state(); after != before {
		t.Errorf("primary changed:\n%s\nwant\n%s", after, before)
	}
	os.Remove(lock)
	if _, err := Run(r.spec(Squash)); err != nil {
		t.Errorf("after the lock went: %v", err)
	}
}

// A target that shares no commit with the run's branch (one made after
// the run started, an orphan) is refused before anything in the primary
// moves, in a line saying so, not git's "refusing to merge unrelated
// histories" after a checkout it then has to undo.
func TestMergeUnrelatedTarget(t *testing.T) {
	r := newRepo(t)
	r.git(r.primary, "checkout", "-q", "--orphan", "agent/feat")
	r.git(r.primary, "rm", "-rq", "--cached", ".")
	r.git(r.primary, "commit", "-q", "--allow-empty", "-m", "orphan")
	r.git(r.primary, "checkout", "-q", "-f", "main")
	state := func() string { // the run branch gets the agent's work committed
		return r.git(r.primary, "status", "--porcelain") + r.git(r.primary, "rev-parse", "HEAD", "agent/feat") +
			r.git(r.primary, "symbolic-ref", "HEAD")
	}
	before := state()
	_, err := Run(r.spec(Squash))
	if err == nil || !strings.Contains(err.Error(), "run/feat and agent/feat share no history, so git cannot merge them") {
		t.Fatalf("err = %v, want the branches named as sharing no history", err)
	}
	if strings.Contains(err.Error(), "unrelated histories") {
		t.Errorf("err = %v: git's raw refusal", err)
	}
	if after := state(); after != before {
		t.Errorf("the primary moved:\n%s\nwant\n%s", after, before)
	}
}

// A person's merge.ff (false: always a merge commit; only: never one) is
// for their own merges: git merge --squash refuses merge.ff=false ("options
// '--squash' and '--no-ff.' cannot be used together"), which failed the
// run after every paid iteration. Both strategies merge whatever it says.
func TestMergeWhateverMergeFF(t *testing.T) {
	for _, ff := range []string{"false", "only"} {
		for _, strategy := range []string{Squash, Merge} {
			t.Run(ff+"/"+strategy, func(t *testing.T) {
				r := newRepo(t)
				r.git(r.primary, "config", "merge.ff", ff)
				res, err := Run(r.spec(strategy))
				if err != nil {
					t.Fatal(err)
				}
				parents := 1
				if strategy == Merge {
					parents = 2
				}
				r.checkMerged(res, parents)
			})
		}
	}
}
