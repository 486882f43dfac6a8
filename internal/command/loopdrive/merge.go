package loopdrive

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/gitrun"
	"github.com/loopkit/loopkit/internal/gitstate"
	"github.com/loopkit/loopkit/internal/merge"
	"github.com/loopkit/loopkit/internal/nextaction"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/recorder"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/runstate"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/userdir"
	"github.com/loopkit/loopkit/internal/view"
	"github.com/loopkit/loopkit/internal/worktree"
)

// mergeBranch merges a completed worktree run's branch into its merge
// target, in the primary worktree, and records how it went (run.json's
// merge, a MERGE_* event). A merge that fails is an outcome, not an error:
// the next decision fails the run with its reason. Only a store that
// cannot be written is an error.
func mergeBranch(env *cli.Env, st *store.Store, id string) error {
	rec := runstate.Plain(st, env.Log).Rec
	in, err := nextaction.Load(st, id)
	if err != nil {
		return cli.Failf("%w", err)
	}
	strategy := in.MergeStrategy()
	if strategy == merge.None {
		return cli.Failf("run %s has no merge to do (no merge target, no worktree, or strategy none)", id)
	}
	// a signal meant for the driver must not cut the merge in half: the
	// driver acts on it once this returns
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGPIPE, syscall.SIGQUIT)
	run := in.Run
	n := in.LastNumber()
	gitrun.TrustRun(st.RunDir(id))
	m := &record.Merge{RunBranch: in.Set().RunBranch, Target: in.Set().MergeTarget,
		Strategy: strategy, Iteration: n, Status: record.MergeStarted, StartedAt: time.Now().UnixMilli()}
	what := fmt.Sprintf("%s into %s (%s) in %s", m.RunBranch, m.Target, strategy, run.WorkspaceRoot)
	if err := saveMerge(rec, id, m, record.EventMergeStarted, "merging "+what); err != nil {
		return err
	}
	res, err := merge.Run(merge.Spec{
		Primary: run.WorkspaceRoot, Worktree: in.Set().Dir, RunBranch: m.RunBranch,
		Target: m.Target, Base: in.Set().BaseBranch, Strategy: strategy,
		Message:     mergeMessage(run.Name, id, n, strategy, m.RunBranch),
		WorkMessage: fmt.Sprintf("loop: the work of run %s (iteration %d)", id, n),
		WorkLimit:   recorder.GitLimit(&run.Settings),
	})
	m.EndedAt = time.Now().UnixMilli()
	if err != nil {
		m.Status, m.Error = record.MergeFailed, err.Error()
		var me *merge.Error
		if errors.As(err, &me) && me.Kind == merge.KindConflict {
			m.Conflicts = me.Paths
		}
		if me != nil && me.Kind == merge.KindUntracked {
			m.Untracked = me.Paths
		}
		return saveMerge(rec, id, m, record.EventMergeFailed, err.Error())
	}
	m.Status, m.Commit, m.WorkCommit, m.Created = record.MergeMerged, res.Commit, res.WorkCommit, res.Created
	m.Unignored = res.Unignored[:min(len(res.Unignored), 100)] // the message counts them all
	made := ""
	if res.Created {
		made = " (made from " + in.Set().BaseBranch + ")"
	}
	msg := fmt.Sprintf("merged %s into %s (%s) as %s: %s%s is checked out in %s",
		m.RunBranch, m.Target, strategy, short(res.Commit), m.Target, made, run.WorkspaceRoot)
	if res.UpToDate {
		msg = fmt.Sprintf("%s already had %s's work: it is checked out in %s", m.Target, m.RunBranch, run.WorkspaceRoot)
	}
	if res.WorkCommit != "" {
		msg += fmt.Sprintf("; the run's uncommitted work was committed on %s as %s", m.RunBranch, short(res.WorkCommit))
	}
	if len(res.Unignored) > 0 {
		msg += fmt.Sprintf("; its .gitignore change un-ignores %s in %s (%s): check them before committing there",
			view.Plural(len(res.Unignored), "file"), run.WorkspaceRoot, merge.List(res.Unignored))
	}
	if err := saveMerge(rec, id, m, record.EventMergeCompleted, msg); err != nil {
		return err
	}
	env.Log.Info(msg)
	_, err = fmt.Fprintln(env.Stdout, res.Commit)
	return err
}

// saveMerge writes the merge's state and its event under one lock.
func saveMerge(rec *recorder.Recorder, id string, m *record.Merge, event, msg string) error {
	_, err := rec.Update(id, func(run *record.Run) error {
		c := *m
		run.Merge = &c
		it := m.Iteration
		return rec.AppendEvent(record.Event{TS: time.Now().UnixMilli(), RunID: id, Type: event, Iteration: &it, Message: msg})
	})
	if err != nil {
		return cli.Failf("run %s: %w", id, err)
	}
	return nil
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// checkMerge refuses, before anything is made, a merge target the run
// could never merge into: a target under the run branch prefix could be
// the run's own branch. (Without --worktree there would be no run branch:
// create makes a merge target imply one, as seed 003's flow does.)
func checkMerge(set *runconfig.Settings) error {
	target, prefix := set.MergeTarget, set.RunBranchPrefix
	if target == "" {
		return nil
	}
	if prefix != "" && strings.HasPrefix(target, prefix) {
		return cli.Usagef("--merge-target %s: must not start with the run branch prefix %s", target, prefix)
	}
	if err := worktree.CheckBranch(set.Dir, target); err != nil { // runcheck's, outside git too
		return cli.Usagef("merge_target_branch %q: %v", target, err)
	}
	if set.MergeStrategy == "none" {
		return nil
	}
	// The merge commits: without an identity (a fresh CI runner) it would
	// fail only after every paid iteration, in git's many lines.
	for _, v := range []string{"GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"} {
		if _, err := gitstate.Git(set.Dir, "var", v); err != nil {
			return cli.Usagef("--merge-target %s: git has no identity to commit the merge with: set user.name and "+
				"user.email (git config --global), or GIT_AUTHOR_NAME/EMAIL and GIT_COMMITTER_NAME/EMAIL", target)
		}
	}
	if err := signCheck(set.Dir); err != nil {
		return cli.Usagef("--merge-target %s: git cannot sign the merge commit (commit.gpgsign is true): %v: make signing "+
			"work without a terminal, or git config commit.gpgsign false in this repository", target, err)
	}
	// merge.verifySignatures has git refuse a branch whose tip is not
	// signed: without commit.gpgsign neither loopkit's commit of the run's
	// work nor the agent's are, and the merge would fail after every
	// paid iteration
	if isTrue(set.Dir, "merge.verifySignatures") && !isTrue(set.Dir, "commit.gpgsign") {
		return cli.Usagef("--merge-target %s: git would refuse to merge the run's unsigned commits (merge.verifySignatures is true): "+
			"git config commit.gpgsign true so that they are signed, or git config merge.verifySignatures false in this repository", target)
	}
	return nil
}

// isTrue tells whether git's config in dir sets key true.
func isTrue(dir, key string) bool {
	out, _ := gitstate.Git(dir, "config", "--bool", key)
	return strings.TrimSpace(string(out)) == "true"
}

// signCheck signs a probe commit when commit.gpgsign is on, as the merge
// will (a key missing, a passphrase no terminal can ask for), into a
// temporary object directory: the repository gets nothing.
func signCheck(dir string) error {
	if on, _ := gitstate.Git(dir, "config", "--bool", "commit.gpgsign"); strings.TrimSpace(string(on)) != "true" {
		return nil
	}
	if _, err := gitstate.Git(dir, "rev-parse", "--verify", "-q", "HEAD^{tree}"); err != nil {
		return nil // no commit yet: the worktree's base is refused later, in its own words
	}
	objs, err := gitstate.Git(dir, "rev-parse", "--path-format=absolute", "--git-path", "objects")
	if err != nil {
		return err
	}
	tmp, err := userdir.MkdirTemp("loopkit-sign-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	_, err = gitrun.Cmd{Dir: dir, Env: []string{"GIT_OBJECT_DIRECTORY=" + tmp,
		"GIT_ALTERNATE_OBJECT_DIRECTORIES=" + strings.TrimSpace(string(objs))}}.Run(
		"commit-tree", "-S", "HEAD^{tree}", "-m", "loopkit: signing check")
	if err != nil {
		// git's own words, without the command line gitrun names
		msg := err.Error()
		if i := strings.Index(msg, ": error: "); i >= 0 {
			msg = msg[i+2:]
		}
		return errors.New(msg)
	}
	return nil
}

// mergeMessage is the merge (or squash) commit's message.
func mergeMessage(name, id string, n int, strategy, branch string) string {
	its := "iterations"
	if n == 1 {
		its = "iteration"
	}
	return fmt.Sprintf("loop: %s\n\nRun %s, completed after %d %s: %s of %s.", name, id, n, its, strategy, branch)
}
