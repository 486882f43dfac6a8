package loopview

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/gitstore"
	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/view"
	"github.com/loopkit/loopkit/internal/view/columns"
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
	if iter == 0 && last == 0 {
		return cli.Failf("run %s has no iterations yet", id)
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
	patch, err := safefile.ReadFile(filepath.Join(c.st.IterationDir(id, iter), store.ChangesPatch), patchViewMax)
	if errors.Is(err, os.ErrNotExist) {
		return cli.Failf("iteration %d of run %s has no %s (its step had no git base to diff from)", iter, id, store.ChangesPatch)
	}
	if err != nil {
		return cli.Failf("%w", err)
	}
	if bytes.HasPrefix(patch, []byte(summaryNote)) {
		return o.whole(c, id, iter, patch)
	}
	return o.print(c, patch)
}

// patchViewMax caps the changes.patch read whole (--max-patch-bytes is
// 10 MiB by default): the file is in the agent's reach, and read as
// safefile reads.
const patchViewMax = 256 << 20

// summaryNote starts a changes.patch that holds only a note and git's
// --stat (the diff was too big to keep).
const summaryNote = "# The diff of this iteration is over "

// whole prints what a summarized changes.patch stands for, from the run's
// trees: the whole diff, or with --stat every file's counts (git's
// --numstat, never the whole diff in memory). Without the trees, the
// summary as stored, and for --stat its own stat lines.
func (o *diffCmd) whole(c *ctx, id string, iter int, summary []byte) error {
	repo, to, from, err := summaryTrees(c, id, iter)
	if err != nil {
		c.env.Log.Warn("only a summary of this diff was kept, and its trees are gone", "err", err)
		if o.Stat {
			_, err := c.env.Stdout.Write(view.SummaryStat(summary))
			return failure(err)
		}
		return failure(view.Patch(c.env.Stdout, c.style, summary))
	}
	if o.Stat {
		var num bytes.Buffer
		if err := repo.Diff(&num, from, to, "--numstat", "-z"); err != nil {
			return cli.Failf("diff of run %s, iteration %d: %w", id, iter, err)
		}
		return failure(columns.WriteStat(c.env.Stdout, c.style, view.NumStat(num.Bytes())))
	}
	var patch bytes.Buffer
	if err := repo.Diff(&patch, from, to, "--binary"); err != nil {
		return cli.Failf("diff of run %s, iteration %d: %w", id, iter, err)
	}
	return o.print(c, patch.Bytes())
}

// summaryTrees are the trees before iteration iter's step and after it.
func summaryTrees(c *ctx, id string, iter int) (*gitstore.Repo, string, string, error) {
	repo, err := gitstore.Open(c.st.RunDir(id))
	if err != nil {
		return nil, "", "", err
	}
	to, err := repo.Tree(iter)
	if err != nil {
		return nil, "", "", err
	}
	from, err := repo.Base(iter)
	return repo, to, from, err
}

func (o *diffCmd) print(c *ctx, patch []byte) error {
	if len(patch) == 0 {
		return nil
	}
	var err error
	if o.Stat {
		err = columns.WriteStat(c.env.Stdout, c.style, view.Stat(patch))
	} else {
		err = view.Patch(c.env.Stdout, c.style, patch)
	}
	return failure(err)
}

// lastIteration is the number of the run's last committed iteration (0: none).
func lastIteration(c *ctx, id string) (int, error) {
	lines, err := store.TailLines(c.st.RunPath(id, store.IterationsFile), 1)
	if err != nil {
		return 0, cli.Failf("%w", err)
	}
	if len(lines) == 0 {
		return 0, nil
	}
	return view.Iteration(lines[0]), nil
}
