package loopprogress

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/progress"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runstate"
	"github.com/loopkit/loopkit/internal/store"
)

// load returns the last n iterations: from --from when given, else from the
// run's log. Readers never create runs.
func load(env *cli.Env, st *store.Store, opts *Options, n int) ([]record.IterationLog, error) {
	if opts.From == "" {
		logs, err := progress.Load(st, opts.Run, n)
		if err != nil {
			return nil, cli.Failf("%w", err)
		}
		return logs, nil
	}
	name, r := "stdin", env.Stdin
	if opts.From != "-" {
		f, err := os.Open(opts.From)
		if err != nil {
			return nil, cli.Failf("--from: %w", unwrapPath(err))
		}
		defer f.Close()
		name, r = opts.From, f
	}
	return readFrom(env, name, r, n)
}

// readFrom decodes records from stdin or a file. A file may be a log being
// appended to, so its torn last line is ignored, as the store's readers do;
// on stdin an incomplete last line is bad input.
func readFrom(env *cli.Env, name string, r io.Reader, n int) ([]record.IterationLog, error) {
	logs, err := progress.ReadRecords(r, n)
	var ie *record.InputError
	switch {
	case err == nil:
		return logs, nil
	case errors.Is(err, progress.ErrTornTail) && name != "stdin":
		env.Log.Warn("ignoring a torn last line", "file", name)
		return logs, nil
	case errors.Is(err, progress.ErrTornTail), errors.As(err, &ie):
		return nil, cli.BadInput(fmt.Errorf("%s %w", name, err))
	}
	return nil, cli.Failf("read %s: %w", name, err)
}

// loadAndSave loads like load and stores the block as run.json's progress
// (the driver reads it there). The run's log is read under the append lock,
// so the block saved matches the log it was saved with. Records from --from
// are read before the lock is taken: the writer feeding the pipe may need it.
func loadAndSave(env *cli.Env, st *store.Store, opts *Options, l progress.Limits) ([]record.IterationLog, error) {
	if err := st.FindRun(opts.Run); err != nil {
		return nil, cli.Failf("%w", err)
	}
	var logs []record.IterationLog
	var err error
	if opts.From != "" {
		if logs, err = load(env, st, opts, l.MaxEntries); err != nil {
			return nil, err
		}
	}
	r := runstate.Plain(st, env.Log).Rec
	_, err = r.Update(opts.Run, func(run *record.Run) error {
		if opts.From == "" {
			var err error
			if logs, err = load(env, st, opts, l.MaxEntries); err != nil {
				return err
			}
		}
		run.Progress = progress.Render(logs, l)
		return nil
	})
	var ee *cli.ExitError
	if errors.As(err, &ee) {
		return nil, err
	}
	if err != nil {
		return nil, cli.Failf("save progress of run %s: %w", opts.Run, err)
	}
	return logs, nil
}
