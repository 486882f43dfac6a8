package runcheck

import (
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
