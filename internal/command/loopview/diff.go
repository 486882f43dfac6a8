package loopview

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/view"
)

const diffHelp = `[OPTIONS] [RUN [ITER [ITER2]]]

Examples:
  $ loop-view diff RUN 3
  $ loop-view diff RUN 3 --stat
  $ loop-view diff RUN 2 5

What the agent changed in an iteration: its changes.patch, from the work
tree before its step to the one after (default: the last iteration). With
two iterations, the difference between the work trees after each, from the
run's private git directory. Coloured like git diff on a terminal, plain
when piped or with NO_COLOR. --stat prints files and line counts instead.`

type diffCmd struct {
	runOpt
	Stat bool `long:"stat" description:"files changed and their line counts instead of the diff"`
}

func (o *diffCmd) run(c *ctx, args []string) error {
	if len(args) > 3 {
		return c.env.UsageError("unexpected argument %q", args[3])
	}
	runArg, iter, err := c.positional(args[:min(len(args), 2)], 2)
	if err != nil {
		return err
	}
	id, err := c.resolveRun(runArg, o.Run, false)
	if err != nil {
		return err
	}
	last, err := lastIteration(c, id)
	if err != nil {
		return err
	}
	if iter == 0 {
		iter = last
	}
	if iter == 0 || iter > last {
		return cli.Failf("run %s has no iteration %d", id, iter)
	}
	if len(args) == 3 {
		_, to, err := c.positional([]string{runArg, args[2]}, 2)
		if err != nil {
			return err
		}
		if to > last {
			return cli.Failf("run %s has no iteration %d", id, to)
		}
		return o.between(c, id, iter, to)
	}
	patch, err := os.ReadFile(filepath.Join(c.st.IterationDir(id, iter), store.ChangesPatch))
	if errors.Is(err, os.ErrNotExist) {
		return cli.Failf("iteration %d of run %s has no %s (its step had no git base to diff from)", iter, id, store.ChangesPatch)
	}
	if err != nil {
		return cli.Failf("%v", err)
	}
	return o.print(c, patch)
}

func (o *diffCmd) print(c *ctx, patch []byte) error {
	if len(patch) == 0 {
		return nil
	}
	var err error
	if o.Stat {
		err = view.WriteStat(c.env.Stdout, c.style, view.Stat(patch))
	} else {
		err = view.Patch(c.env.Stdout, c.style, patch)
	}
	return failure(err)
}

// lastIteration is the number of the run's last committed iteration (0: none).
func lastIteration(c *ctx, id string) (int, error) {
	lines, err := store.TailLines(c.st.RunPath(id, store.IterationsFile), 1)
	if err != nil {
		return 0, cli.Failf("%v", err)
	}
	if len(lines) == 0 {
		return 0, nil
	}
	return view.Iteration(lines[0]), nil
}
