package loopdrive

import (
	"bytes"
	"fmt"
	"path/filepath"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/gitrun"
)

// bringBack is the hint for a worktree run whose work tree dir is gone:
// the command that brings it back, as the person left things. A worktree
// moved (git worktree move) is moved back; a worktree removed is added
// again on its branch; a branch deleted too leaves nothing to add, and
// `git worktree add DIR BRANCH` would only fail.
func bringBack(primary, dir, branch, id string, n int) string {
	ref := "refs/heads/" + branch
	if out, err := gitrun.Git(primary, "worktree", "list", "--porcelain"); err == nil {
		var at string
		for _, line := range bytes.Split(out, []byte("\n")) {
			if p, ok := bytes.CutPrefix(line, []byte("worktree ")); ok {
				at = string(p)
			} else if string(line) == "branch "+ref && filepath.Clean(at) != filepath.Clean(dir) {
				return fmt.Sprintf("its branch %s is checked out in %s: %s, then resume", branch, at, cli.Quote([]string{"git", "worktree", "move", at, dir}))
			}
		}
	}
	if _, err := gitrun.Git(primary, "show-ref", "--verify", "--quiet", ref); err != nil {
		if n == 0 {
			return fmt.Sprintf("its branch %s is gone too: start a new run", branch)
		}
		return fmt.Sprintf("its branch %s is gone too: start a new run ('loop-view checkout %s %d --to DIR' writes the files of its last iteration)", branch, id, n)
	}
	return cli.Quote([]string{"git", "worktree", "add", dir, branch}) + ", then resume; or start a new run"
}
