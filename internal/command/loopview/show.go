package loopview

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/view"
)

type showCmd struct {
	runOpt
	Stdout   bool   `long:"stdout" description:"the validation's stdout (the default)"`
	Stderr   bool   `long:"stderr" description:"the validation's stderr"`
	Executor bool   `long:"executor" description:"executor.log: the agent's streams"`
	Meta     bool   `long:"meta" description:"meta.json"`
	File     string `long:"file" value-name:"NAME" description:"any other file of the iteration folder (agent.stdout, prompt.txt, changes.patch, guard.log, ...)" unquote:"false"`
}

// file is the iteration folder file the flags name (one at most).
func (o *showCmd) file() (string, error) {
	var picked []string
	for _, f := range []struct {
		set  bool
		name string
	}{{o.Stdout, store.ValidationStdout}, {o.Stderr, store.ValidationStderr},
		{o.Executor, store.ExecutorLog}, {o.Meta, store.MetaFile}, {o.File != "", o.File}} {
		if f.set {
			picked = append(picked, f.name)
		}
	}
	switch {
	case len(picked) == 0:
		return store.ValidationStdout, nil
	case len(picked) > 1:
		return "", errors.New("give one of --stdout, --stderr, --executor, --meta, --file")
	}
	name := picked[0]
	if name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return "", errors.New("--file takes a file name of the iteration folder, not a path")
	}
	return name, nil
}

// run copies the stream as stored, byte for byte: for less, grep and diff.
func (o *showCmd) run(c *ctx, args []string) error {
	// [RUN] ITER: with one argument the run comes from --run, LOOP_RUN_ID
	// or is the newest, as for the other views.
	if len(args) == 1 {
		args = []string{"", args[0]}
	}
	if len(args) != 2 {
		return c.env.UsageError("show takes [RUN] ITER, got %d arguments", len(args))
	}
	runArg, iter, err := c.positional(args, 2)
	if err != nil {
		return err
	}
	name, err := o.file()
	if err != nil {
		return c.env.UsageError("%v", err)
	}
	id, err := c.resolveRun(runArg, o.Run, false)
	if err != nil {
		return err
	}
	// A folder without its committed line is a leftover, not an iteration.
	lines, err := store.TailLines(c.st.RunPath(id, store.IterationsFile), 1)
	if err != nil {
		return cli.Failf("%w", err)
	}
	if len(lines) == 0 || view.Iteration(lines[0]) < iter {
		return cli.Failf("run %s has no iteration %d", id, iter)
	}
	path := filepath.Join(c.st.IterationDir(id, iter), name)
	// The iteration folder is in the agent's reach: a link planted there
	// (to a file outside the store) is refused, a FIFO never waited on.
	f, err := safefile.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return cli.Failf("iteration %d of run %s has no %s", iter, id, name)
	}
	if err != nil {
		return cli.Failf("%w", err)
	}
	defer f.Close()
	var src io.Reader = f
	if n := c.recordedBytes(id, iter, name); n > 0 {
		src = io.LimitReader(f, n) // never past what the record describes
	}
	if _, err := io.Copy(c.env.Stdout, src); err != nil {
		return failure(err)
	}
	return nil
}

// recordedBytes is the size the iteration's record gives for a stream of
// the validation (0 when unknown or another file).
func (c *ctx) recordedBytes(id string, iter int, name string) int64 {
	key := map[string]string{store.ValidationStdout: "stdout_bytes", store.ValidationStderr: "stderr_bytes"}[name]
	if key == "" {
		return 0
	}
	var n int64
	q := &view.Query{Iteration: iter}
	q.Run(c.st.RunPath(id, store.IterationsFile), func(rec *view.Record) error {
		var v map[string]json.RawMessage
		if json.Unmarshal(rec.Raw, &v) == nil {
			json.Unmarshal(v[key], &n)
		}
		return nil
	})
	return n
}
