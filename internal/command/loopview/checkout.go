package loopview

import (
	"github.com/loopkit/loopkit/internal/cli"
)

const checkoutHelp = `[OPTIONS] RUN ITER --to DIR

Examples:
  $ loop-view checkout RUN 3 --to /tmp/iter3
  $ loop-view checkout RUN 3 --to /tmp/iter3 && diff -r /tmp/iter3 .

Writes the work tree as it was after iteration ITER into DIR (new, or an
empty folder of yours): every file with its mode, symlinks as symlinks,
from the run's private git directory. Nothing else is written: not the
store, not your repository; a checkout cut short (a full disk) leaves DIR
as it was, for the retry.`

type checkoutCmd struct {
	To string `long:"to" value-name:"DIR" required:"true" description:"directory to write the files into (new, or an empty one of yours)" unquote:"false"`
}

func (o *checkoutCmd) run(c *ctx, args []string) error {
	if len(args) != 2 {
		return c.env.UsageError("checkout takes RUN and ITER")
	}
	runArg, iter, err := c.positional(args, 2)
	if err != nil {
		return err
	}
	id, err := c.resolveRun(runArg, "", false)
	if err != nil {
		return err
	}
	last, err := lastIteration(c, id)
	if err != nil {
		return err
	}
	if iter > last {
		return cli.Failf("run %s has no iteration %d", id, iter)
	}
	repo, tree, _, err := trees(c, id, iter, 0)
	if err != nil {
		return err
	}
	if err := repo.Checkout(tree, o.To); err != nil {
		return cli.Failf("checkout of run %s iteration %d into %s: %w", id, iter, o.To, err)
	}
	_, err = c.env.Stdout.WriteString(o.To + "\n")
	return err
}
