// Package merge brings a finished run's branch into a target branch in the
// primary worktree: one merge commit, or one squashed commit. It never
// pushes, never rewrites the run's branch, and undoes a merge that
// conflicts, so the primary worktree is left as it was found.
package merge

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/loopkit/loopkit/internal/gitrun"
	"github.com/loopkit/loopkit/internal/quote"
)

// Strategies.
const (
	None   = "none"   // no merge: the run's branch stays for a person
	Merge  = "merge"  // a merge commit (git merge --no-ff)
	Squash = "squash" // one commit of the run's whole change (git merge --squash)
	// DefaultStrategy applies when a target is set without a strategy.
	DefaultStrategy = Squash
)

// Spec is one merge.
type Spec struct {
	// Primary is the top of the worktree the run was started from, where
	// the target is checked out and merged into.
	Primary string
	// Worktree is the run's own worktree: work left uncommitted there is
	// committed on RunBranch first ("" skips that).
	Worktree  string
	RunBranch string
	Target    string
	// Base is what a missing target is created from.
	Base     string
	Strategy string
	// Message is the merge or squash commit's message; WorkMessage that of
	// the commit of the run's uncommitted work.
	Message, WorkMessage string
	// WorkLimit is how long git may take over the run's worktree (0: no
	// limit). What the agent left there can block git for good (a FIFO
	// where git reads a .gitignore); past it every git of the process is
	// stopped (gitrun.Abort), before the primary worktree is touched.
	WorkLimit time.Duration
}

// Result is a merge that went through.
type Result struct {
	Commit     string // the target's head afterwards
	Created    bool   // the target was created from Base
	WorkCommit string // the commit of the run's uncommitted work, if any
	UpToDate   bool   // the target had the run's work already: no commit
	// Unignored are files of the primary that were ignored before the
	// merge and are not after it: the merge changed a .gitignore.
	Unignored []string
}

// Kinds of Error.
const (
	KindDirty    = "dirty"    // the primary worktree has uncommitted changes or an operation in progress
	KindConflict = "conflict" // the merge conflicted and was aborted
	KindGit      = "git"      // any other refusal of git's
	// KindUntracked: the merge would write over untracked or ignored files
	// of the primary worktree (a person's .env, local settings).
	KindUntracked = "untracked"
)

// Error is a merge that did not happen; the primary worktree is as it was.
type Error struct {
	Kind  string
	Paths []string // the conflicting or uncommitted paths
	Err   error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Run merges s.RunBranch into s.Target and leaves the target checked out
// in s.Primary. On any error after the checkout, the merge is aborted, the
// branch checked out before is checked out again and a target this call
// created is deleted.
func Run(s Spec) (*Result, error) {
	if s.Strategy != Merge && s.Strategy != Squash {
		return nil, fmt.Errorf("merge strategy %q: want merge or squash", s.Strategy)
	}
	p := s.Primary
	if err := clean(p); err != nil {
		return nil, err
	}
	res := &Result{}
	if s.Worktree != "" {
		stop := func() bool { return true }
		if s.WorkLimit > 0 {
			stop = time.AfterFunc(s.WorkLimit, gitrun.Abort).Stop
		}
		c, err := commitWork(s.Worktree, s.RunBranch, s.WorkMessage)
		if !stop() { // stopped, or about to be: no git of the primary's may start
			return nil, &Error{Kind: KindGit, Err: fmt.Errorf("git did not finish reading the run's worktree %s within %s and was stopped: "+
				"something there blocks it (a FIFO where git reads a .gitignore?); remove it", s.Worktree, s.WorkLimit)}
		}
		if err != nil {
			return nil, &Error{Kind: KindGit, Err: err}
		}
		res.WorkCommit = c
	}
	if !branchExists(p, s.RunBranch) {
		return nil, &Error{Kind: KindGit, Err: fmt.Errorf("run branch %s: no such branch in %s", s.RunBranch, p)}
	}
	prev, err := head(p)
	if err != nil {
		return nil, &Error{Kind: KindGit, Err: err}
	}
	from := s.Target
	if !branchExists(p, s.Target) {
		from = s.Base
	} else if err := Unrelated(p, s.RunBranch, s.Target); err != nil {
		return nil, &Error{Kind: KindGit, Err: err}
	}
	paths, err := written(p, prev, from, s.RunBranch)
	if err != nil {
		return nil, &Error{Kind: KindGit, Err: err}
	}
	if err := untracked(p, paths, s); err != nil {
		return nil, err
	}
	var visible map[string]bool // untracked files before, when a .gitignore changes
	if touchesIgnore(paths) {
		if visible, err = untrackedFiles(p); err != nil {
			return nil, &Error{Kind: KindGit, Err: err}
		}
	}
	if !branchExists(p, s.Target) {
		if _, err := git(p, "branch", "--no-track", s.Target, s.Base); err != nil {
			return nil, &Error{Kind: KindGit, Err: fmt.Errorf("create %s from %s: %w", s.Target, s.Base, err)}
		}
		res.Created = true
	}
	if prev != s.Target {
		if _, err := git(p, "checkout", "-q", "--no-overwrite-ignore", s.Target); err != nil {
			return nil, &Error{Kind: KindGit, Err: undo(p, prev, s.Target, res.Created, false, fmt.Errorf("check out %s: %w", s.Target, err))}
		}
	}
	// the person at work in the primary may have staged or edited since
	// the check above (while the run's work was committed): a merge over
	// it would commit it as the loop's, or undo it with the merge
	var dirty *Error
	if err := clean(p); errors.As(err, &dirty) {
		dirty.Err = undo(p, prev, s.Target, res.Created, false, dirty.Err)
		return nil, dirty
	} else if err != nil {
		return nil, &Error{Kind: KindGit, Err: undo(p, prev, s.Target, res.Created, false, err)}
	}
	before, err := rev(p, "HEAD")
	if err != nil {
		return nil, &Error{Kind: KindGit, Err: undo(p, prev, s.Target, res.Created, false, err)}
	}
	if e, started := merge(p, s); e != nil {
		e.Err = undo(p, prev, s.Target, res.Created, started, e.Err)
		return nil, e
	}
	if res.Commit, err = rev(p, "HEAD"); err != nil {
		return nil, &Error{Kind: KindGit, Err: err}
	}
	res.UpToDate = res.Commit == before
	if visible != nil {
		now, err := untrackedFiles(p)
		if err != nil {
			return nil, &Error{Kind: KindGit, Err: err}
		}
		for f := range now {
			if !visible[f] {
				res.Unignored = append(res.Unignored, f)
			}
		}
		sort.Strings(res.Unignored)
	}
	return res, nil
}

// merge runs git merge in the clean primary worktree, on the target;
// started tells whether git began it (left a merge or a squash to undo),
// not refused it before touching anything.
func merge(p string, s Spec) (e *Error, started bool) {
	// --no-overwrite-ignore: git's own refusal, should a file appear
	// between the check in untracked and the merge
	// --no-ff and --ff over the person's merge.ff, which is for their own
	// merges: git refuses --squash under merge.ff=false
	args := []string{"merge", "--no-overwrite-ignore", "--no-ff", "--no-edit", "-m", s.Message, s.RunBranch}
	if s.Strategy == Squash {
		args = []string{"merge", "--no-overwrite-ignore", "--ff", "--squash", s.RunBranch}
	}
	if _, err := git(p, args...); err != nil {
		if paths := conflicts(p); len(paths) > 0 {
			return &Error{Kind: KindConflict, Paths: paths, Err: fmt.Errorf(
				"merging %s into %s conflicts in %s: the merge was aborted and %s is intact; merge it by hand",
				s.RunBranch, s.Target, strings.Join(paths, ", "), s.RunBranch)}, true
		}
		// refused before it began (no conflict, no merge in progress):
		// a reset would throw away whatever the primary holds
		return &Error{Kind: KindGit, Err: fmt.Errorf("merge %s into %s: %w", s.RunBranch, s.Target, err)}, exists(gitPath(p, "MERGE_HEAD"))
	}
	if s.Strategy != Squash {
		return nil, true
	}
	if _, err := git(p, "diff", "--cached", "--quiet"); err == nil {
		return nil, true // the target had it all: nothing to commit
	}
	if _, err := git(p, "commit", "-q", "--no-edit", "-m", s.Message); err != nil {
		return &Error{Kind: KindGit, Err: fmt.Errorf("commit the squashed %s: %w", s.RunBranch, err)}, true
	}
	return nil, true
}

// undo aborts the merge in progress, when one started, and restores the
// primary worktree; what could not be undone is added to the cause. With
// no merge begun nothing is reset: what the index and the files hold then
// is the person's.
func undo(p, prev, target string, created, started bool, cause error) error {
	var errs []error
	if !started {
		// nothing of the merge's to take back
	} else if exists(gitPath(p, "MERGE_HEAD")) {
		if _, err := git(p, "merge", "--abort"); err != nil {
			errs = append(errs, err)
		}
	} else if _, err := git(p, "reset", "-q", "--merge"); err != nil { // a squash leaves no MERGE_HEAD
		errs = append(errs, err)
	}
	if cur, _ := head(p); cur != prev {
		if _, err := git(p, "checkout", "-q", prev); err != nil {
			errs = append(errs, err)
		}
	}
	if created {
		if _, err := git(p, "branch", "-q", "-D", target); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w (and undoing it failed: %v)", cause, quote.Errors(errs))
	}
	return cause
}

// commitWork commits what the run left uncommitted in its worktree on the
// run's branch, so the branch holds what the validation saw. It returns
// the commit, or "" when there was nothing to commit.
func commitWork(wt, branch, msg string) (string, error) {
	cur, err := head(wt)
	if err != nil {
		return "", err
	}
	if cur != branch {
		return "", fmt.Errorf("the run's worktree %s is on %s, not on its branch %s", wt, cur, branch)
	}
	sparse, err := unskipPresent(wt)
	if err != nil {
		return "", err
	}
	out, err := git(wt, "status", "--porcelain", "--untracked-files=all")
	if err != nil || len(bytes.TrimSpace(out)) == 0 {
		return "", err
	}
	// A sparse checkout (git worktree add copies it) has git add pass over
	// the files outside its definition, or refuse them: the agent's work
	// there would be left out. The worktree's own index marks the files
	// the checkout left out, so --sparse takes no absence for a deletion;
	// git before 2.34 has no --sparse, and no refusal either.
	if sparse {
		_, err = git(wt, "add", "-A", "--sparse")
	}
	if !sparse || (err != nil && strings.Contains(err.Error(), "unknown option `sparse'")) {
		_, err = git(wt, "add", "-A")
		if err != nil && strings.Contains(err.Error(), "outside of your sparse-checkout definition") {
			_, err = git(wt, "add", "-A", "--sparse")
		}
	}
	if err != nil {
		return "", err
	}
	if _, err := git(wt, "commit", "-q", "--no-edit", "-m", msg); err != nil {
		return "", fmt.Errorf("commit the run's work in %s: %w", wt, err)
	}
	return rev(wt, "HEAD")
}

// unskipPresent clears the skip-worktree mark of the files in the run's
// worktree wt that are there: a sparse checkout (git worktree add copies
// it) marks the files it leaves out, and git status and git add pass over
// a marked file whatever it holds, so an agent's edit to one would be
// left out of the run's branch. sparse: marked files are left, absent.
func unskipPresent(wt string) (sparse bool, err error) {
	out, err := git(wt, "ls-files", "-t", "-z")
	if err != nil {
		return false, err
	}
	var paths []string
	for _, ent := range bytes.Split(out, []byte{0}) {
		if len(ent) > 2 && ent[0] == 'S' {
			if _, err := os.Lstat(filepath.Join(wt, filepath.FromSlash(string(ent[2:])))); err == nil {
				paths = append(paths, string(ent[2:]))
			} else {
				sparse = true
			}
		}
	}
	if len(paths) == 0 {
		return sparse, nil
	}
	_, err = gitrun.Cmd{Dir: wt, Stdin: strings.NewReader(strings.Join(paths, "\x00") + "\x00"), Group: true}.
		Run("update-index", "--no-skip-worktree", "-z", "--stdin")
	return sparse, err
}

// clean refuses a primary worktree with changes to tracked files (which a
// checkout would carry or refuse), with a merge, rebase, cherry-pick or
// revert in progress, or whose index another git holds. Untracked and ignored files are checked by untracked,
// once the paths the merge writes are known.
func clean(p string) error {
	for _, f := range []string{"MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "rebase-merge", "rebase-apply"} {
		if exists(gitPath(p, f)) {
			return &Error{Kind: KindDirty, Err: fmt.Errorf(
				"primary worktree %s has a merge, rebase, cherry-pick or revert in progress: finish or abort it, then resume", p)}
		}
	}
	// git's own refusal would come mid-merge, its undo refused too
	if lock := gitPath(p, "index.lock"); exists(lock) {
		return &Error{Kind: KindDirty, Err: fmt.Errorf("primary worktree %s is locked by another git (%s exists): "+
			"let it finish (an editor open on a commit?), or remove the file if no git runs, then resume", p, lock)}
	}
	out, err := git(p, "status", "--porcelain", "-z", "--untracked-files=no")
	if err != nil {
		return &Error{Kind: KindGit, Err: err}
	}
	var paths []string
	fields := bytes.Split(out, []byte{0})
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if len(f) < 4 {
			continue
		}
		paths = append(paths, string(f[3:]))
		if f[0] == 'R' || f[0] == 'C' {
			i++ // the old name of a rename follows
		}
	}
	if len(paths) > 0 {
		return &Error{Kind: KindDirty, Paths: paths, Err: fmt.Errorf(
			"primary worktree %s has uncommitted changes (%s): commit or stash them, then resume", p, List(paths))}
	}
	return nil
}

// List names the first few paths.
func List(paths []string) string {
	if len(paths) <= 5 {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(paths[:5], ", "), len(paths)-5)
}

// conflicts are the unmerged paths of the index.
func conflicts(p string) []string {
	out, err := git(p, "diff", "--name-only", "--diff-filter=U", "-z")
	if err != nil {
		return nil
	}
	var paths []string
	for _, f := range bytes.Split(out, []byte{0}) {
		if len(f) > 0 {
			paths = append(paths, string(f))
		}
	}
	return paths
}

// head is the branch checked out in dir, or its commit when detached.
func head(dir string) (string, error) {
	if out, err := git(dir, "symbolic-ref", "-q", "--short", "HEAD"); err == nil {
		return strings.TrimSpace(string(out)), nil
	}
	return rev(dir, "HEAD")
}

func rev(dir, r string) (string, error) {
	out, err := git(dir, "rev-parse", "--verify", "-q", r+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%s: not a commit in %s", r, dir)
	}
	return strings.TrimSpace(string(out)), nil
}

func branchExists(dir, b string) bool {
	_, err := git(dir, "show-ref", "--verify", "--quiet", "refs/heads/"+b)
	return err == nil
}

// gitPath is a file of dir's git directory (a linked worktree has its own).
func gitPath(dir, name string) string {
	out, err := git(dir, "rev-parse", "--git-path", name)
	if err != nil {
		return ""
	}
	path := strings.TrimSpace(string(out))
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	return path
}

func exists(path string) bool {
	if path == "" {
		return false
	}
	_, err := os.Lstat(path)
	return err == nil
}

// git runs git in dir in a process group of its own: a Ctrl-C meant for
// the driver must not cut a merge in half (the driver acts on it after).
func git(dir string, args ...string) ([]byte, error) {
	return gitrun.Cmd{Dir: dir, Env: []string{"GIT_MERGE_AUTOEDIT=no", "LC_ALL=C"}, Group: true}.Run(args...)
}
