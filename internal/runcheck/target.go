package runcheck

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/loopkit/loopkit/internal/gitstate"
	"github.com/loopkit/loopkit/internal/merge"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/worktree"
)

// targetRelated refuses a merge target that exists and shares no commit
// with the run's base (a shallow CI clone fetched both tips alone): git
// would refuse the merge after every paid iteration.
func targetRelated(top string, s *runconfig.Settings) error {
	if s.MergeStrategy == merge.None {
		return nil
	}
	if _, err := gitstate.Git(top, "show-ref", "--verify", "--quiet", "refs/heads/"+s.MergeTarget); err != nil {
		return nil // made from the base at the merge
	}
	base := s.BaseBranch
	if base == "" {
		base = worktree.DefaultBranch(top)
	}
	return merge.Unrelated(top, base, "refs/heads/"+s.MergeTarget)
}

// targetElsewhere refuses a merge target checked out in another worktree
// than top, where the merge checks it out: git checks a branch out in one
// worktree at a time, and would refuse after every paid iteration.
func targetElsewhere(top string, s *runconfig.Settings) error {
	if s.MergeStrategy == merge.None {
		return nil
	}
	out, err := gitstate.Git(top, "worktree", "list", "--porcelain")
	if err != nil {
		return nil // the merge says it in git's words
	}
	here := realPath(top)
	path := ""
	for _, line := range strings.Split(string(out), "\n") {
		if p, ok := strings.CutPrefix(line, "worktree "); ok {
			path = p
		} else if line == "branch refs/heads/"+s.MergeTarget && realPath(path) != here {
			return fmt.Errorf("%s is checked out in the worktree %s, and git checks a branch out in one worktree at a time: "+
				"run the loop from there, or name another target", s.MergeTarget, path)
		}
	}
	return nil
}

// realPath is path with its links resolved, when it can be.
func realPath(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return filepath.Clean(path)
}
