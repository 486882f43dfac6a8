package loopview

import (
	"bytes"
	"errors"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/gitstore"
)

// between prints the difference between the trees after iterations a and
// b, from the run's private git directory.
func (o *diffCmd) between(c *ctx, id string, a, b int) error {
	repo, from, to, err := trees(c, id, a, b)
	if err != nil {
		return err
	}
	var patch bytes.Buffer
	// --binary, as changes.patch is: a patch git applies to A's tree to
	// make B's, a binary file included ("Binary files differ" is none)
	if err := repo.Diff(&patch, from, to, "--binary"); err != nil {
		return cli.Failf("diff of run %s, iterations %d and %d: %w", id, a, b, err)
	}
	return o.print(c, patch.Bytes())
}

// trees opens the run's private git directory and finds the trees left by
// iterations a and b (b 0: a only).
func trees(c *ctx, id string, a, b int) (*gitstore.Repo, string, string, error) {
	repo, err := gitstore.Open(c.st.RunDir(id))
	if errors.Is(err, gitstore.ErrNoTree) {
		return nil, "", "", cli.Failf("run %s kept no work trees (its workspace is not a git work tree, or it was recorded before trees were kept)", id)
	}
	if err != nil {
		return nil, "", "", cli.Failf("%w", err)
	}
	var ids [2]string
	for i, n := range []int{a, b} {
		if n == 0 {
			continue
		}
		if ids[i], err = repo.Tree(n); errors.Is(err, gitstore.ErrNoTree) {
			return nil, "", "", cli.Failf("run %s kept no tree for iteration %d", id, n)
		} else if err != nil {
			return nil, "", "", cli.Failf("run %s: %w", id, err)
		}
	}
	return repo, ids[0], ids[1], nil
}
