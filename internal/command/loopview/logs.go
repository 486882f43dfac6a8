package loopview

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/view"
)

// failedIteration is --failed for iterations: anything that did not pass.
const failedIteration = `.status != "pass"`

type logsCmd struct {
	runOpt
	filterOpts
	jsonOpts
	Verbose   bool         `short:"v" long:"verbose" description:"list each iteration's tool calls and tokens under it"`
	Follow    bool         `short:"f" long:"follow" description:"keep printing iterations as they are recorded, until interrupted"`
	UntilDone bool         `long:"until-done" description:"with --follow, stop once the run has ended (completed, failed, stuck, canceled), or with exit 1 once no driver drives it (paused, interrupted)"`
	Interval  cli.Duration `long:"interval" value-name:"D" default:"100ms" description:"with --follow, how often to look for new iterations"`
}

type outputCmd struct {
	runOpt
	filterOpts
	jsonOpts
	Full bool `long:"full" description:"print all of stdout, then stderr, instead of the first 200 characters"`
}

func (o *logsCmd) run(c *ctx, args []string) error {
	if o.UntilDone && !o.Follow {
		return c.env.UsageError("--until-done needs --follow")
	}
	if o.Interval.D() <= 0 {
		return c.env.UsageError("--interval must be more than 0")
	}
	logs := &view.Logs{W: c.env.Stdout, Style: c.style, Verbose: o.Verbose}
	// attempts after the last iteration close the whole listing, not a
	// selection of it (ITER, --failed, --where) or one being followed
	trailing := !o.JSON && o.JQ == "" && !o.Follow && len(args) < 2 && !o.Failed && o.Where == ""
	err := c.iterations(args, &o.runOpt, &o.filterOpts, &o.jsonOpts, o, logs.Write, func(id string, last int) {
		logs.Width = len(strconv.Itoa(last))
		if atts, err := view.LoadAttempts(c.st, id); err == nil {
			logs.Attempts = view.AttemptsByIteration(atts)
		}
		if o.Verbose {
			if run, err := c.st.ReadRun(id); err == nil {
				logs.Signals = view.SignalsByIteration(run)
			}
		}
	})
	if err != nil || !trailing {
		return err
	}
	return logs.Trailing()
}

func (o *outputCmd) run(c *ctx, args []string) error {
	out := &view.Output{W: c.env.Stdout, Style: c.style, Full: o.Full}
	return c.iterations(args, &o.runOpt, &o.filterOpts, &o.jsonOpts, nil, func(rec *view.Record) error {
		return out.Write(rec)
	}, func(id string, _ int) { out.RunID = id })
}

// iterations runs the logs and output views: select the run's iterations,
// print them as text (render) or NDJSON, and follow when asked.
func (c *ctx) iterations(args []string, ro *runOpt, fo *filterOpts, jo *jsonOpts, follow *logsCmd,
	render func(*view.Record) error, setup func(id string, lastIter int)) error {
	runArg, iter, err := c.positional(args, 2)
	if err != nil {
		return err
	}
	following := follow != nil && follow.Follow
	if following && iter > 0 {
		return c.env.UsageError("--follow shows new iterations; it takes no ITER")
	}
	filters, jq, err := c.compile(fo, failedIteration, jo)
	if err != nil {
		return err
	}
	id, err := c.waitRun(runArg, ro.Run, following)
	if err != nil {
		return err
	}
	path := c.st.RunPath(id, store.IterationsFile)
	q := &view.Query{Filters: filters, Last: fo.Last, Iteration: iter, Numbered: true}
	q.OnError = func(rec *view.Record, err error) {
		var le *view.LineError
		if errors.As(err, &le) && le.Line == 0 {
			le.Line = view.LineOf(path, le.Offset) // read backwards: count once, on error only
		}
		c.fail("%s", describeRecord(id, path, rec, err))
	}
	asJSON := jo.JSON || jq != nil
	q.Valid = asJSON // --json copies lines: only whole records
	emit := func(rec *view.Record) error {
		err := render(rec)
		var le *view.LineError
		if errors.As(err, &le) {
			c.fail("%s: %v", path, err)
			return nil
		}
		return err
	}
	if asJSON {
		if jq != nil {
			q.Need, q.NeedAll = jq.Fields, jq.All
		}
		emit = func(rec *view.Record) error {
			return c.writeJSON(rec.Raw, rec.Value, jq, jo.Raw, func() string { return recordName(id, rec) })
		}
	} else {
		last := 0
		if lines, _ := tailIfAligned(c, path); len(lines) == 1 {
			last = view.Iteration(lines[0])
		}
		setup(id, last)
	}
	end, lineNo, err := q.Run(path, emit)
	if errors.Is(err, view.ErrNoSuchIteration) {
		return cli.Failf("run %s has no iteration %d", id, iter)
	}
	if err != nil {
		return failure(err)
	}
	if !following {
		return nil
	}
	if q.Iteration == 0 && q.Last > 0 {
		lineNo = -1
	}
	q.Last = 0
	sigCtx, stop := c.env.Following()
	defer stop()
	f := &view.Follow{St: c.st, RunID: id, Query: q, Emit: emit, Flush: c.env.Stdout.Flush,
		UntilDone: follow.UntilDone, Interval: follow.Interval.D(),
		Warn: func(msg string) { c.env.Log.Warn(msg, "run", id) }}
	err = f.Run(sigCtx, end, lineNo)
	if errors.Is(err, context.Canceled) {
		return cli.Stopped(sigCtx)
	}
	return failure(err)
}

// waitRun resolves the run; with --follow a named run need not exist yet
// (tail -F), and with no run at all it waits for the first one.
func (c *ctx) waitRun(arg, flag string, following bool) (string, error) {
	if !following || arg != "" || flag != "" {
		id, err := c.resolveRun(arg, flag, following)
		if err != nil || !following {
			return id, err
		}
		switch err := c.st.FindRun(id); {
		case errors.Is(err, store.ErrNoSuchRun):
			// said once: a mistyped id would otherwise wait in silence
			fmt.Fprintf(c.env.Stderr, "%s: %s\n", c.env.Name, view.Escape(fmt.Sprintf(
				"no run %s in store %s yet: waiting for it (Ctrl-C to stop; loop-view runs lists the runs)", id, c.st.Root), false))
		case err != nil: // there, but never readable by waiting
			return "", cli.Failf("%w", err)
		}
		return id, nil
	}
	for said := false; ; said = true { // interrupting here needs no clean-up: nothing is printed yet
		newest, err := view.Newest(c.st)
		if newest != "" || err != nil {
			return newest, err
		}
		if !said {
			// said once, as for a run id: a store with no runs (a wrong
			// LOOP_STORE, another directory) would otherwise wait in silence
			fmt.Fprintf(c.env.Stderr, "%s: %s\n", c.env.Name, view.Escape(fmt.Sprintf(
				"no runs in store %s yet: waiting for the first (Ctrl-C to stop)", c.st.Root), false))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func recordName(id string, rec *view.Record) string {
	if n := view.Iteration(rec.Raw); n > 0 {
		return fmt.Sprintf("run %s iteration %d", id, n)
	}
	if rec.Line > 0 {
		return fmt.Sprintf("run %s line %d", id, rec.Line)
	}
	return fmt.Sprintf("run %s line at byte %d", id, rec.Offset)
}

func describeRecord(id, path string, rec *view.Record, err error) string {
	var le *view.LineError
	if errors.As(err, &le) {
		return fmt.Sprintf("%s: %v", path, err)
	}
	return fmt.Sprintf("%s: %v", recordName(id, rec), err)
}

func failure(err error) error {
	if err == nil || cli.IsBrokenPipe(err) {
		return err
	}
	var ee *cli.ExitError
	if errors.As(err, &ee) {
		return err
	}
	return cli.WithCode(exitcode.Failure, err)
}

// tailIfAligned reads the last line only when a terminal needs the width.
func tailIfAligned(c *ctx, path string) ([][]byte, error) {
	if !c.style.Align {
		return nil, nil
	}
	return store.TailLines(path, 1)
}

func (o *logsCmd) waits() bool { return o.Follow }
