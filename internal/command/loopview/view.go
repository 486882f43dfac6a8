// Package loopview is the loop-view command: the Output, Logs and
// Describe views for people, NDJSON and jq results for scripts.
package loopview

import (
	"errors"
	"fmt"
	"strconv"

	flags "github.com/jessevdk/go-flags"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/jqfilter"
	"github.com/loopkit/loopkit/internal/quote"
	"github.com/loopkit/loopkit/internal/settings"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/view"
)

const usage = `[OPTIONS] COMMAND [ARGS...]

Examples:
  $ loop-view runs                      # every run, newest first
  $ loop-view logs -v                   # the newest run's iterations
  $ loop-view show RUN 3 --stderr | less

Shows what a loop did, reading the store and never changing it. RUN
defaults to --run / LOOP_RUN_ID, then to the newest run. --json prints the
stored records as NDJSON; --jq EXPR transforms each (like jq -c) and -r
prints strings raw, so scripts read values without jq. 'loop-view COMMAND
--help' shows a command's options.

Exit status: 0 success; 1 no such run or iteration, I/O failure, a jq
error on some record (each named on stderr), or a followed run no driver
drives any more (paused or interrupted) or that was deleted; 2 usage,
including a jq expression that does not compile; 130 when --follow is
interrupted (Ctrl-C), 143 when it is terminated (SIGTERM).`

// Options are the options every subcommand takes.
type Options struct {
	cli.Common
}

type runOpt struct {
	Run string `long:"run" env:"LOOP_RUN_ID" value-name:"ID" description:"run to show (a RUN argument wins; default: the newest run)" unquote:"false"`
}

type jsonOpts struct {
	JSON bool   `long:"json" description:"print the records as NDJSON instead of text"`
	JQ   string `long:"jq" value-name:"EXPR" description:"transform each record with a jq expression, printed like jq -c (implies --json)" unquote:"false"`
	Raw  bool   `short:"r" long:"raw-output" description:"print string results of --jq raw, like jq -r"`
}

type filterOpts struct {
	Failed bool   `long:"failed" description:"only failed records (iterations that did not pass; runs failed or stuck)"`
	Where  string `long:"where" value-name:"JQ" description:"only records for which the jq expression is true (e.g. '.exit_code != 0 and .duration_ms > 1000')" unquote:"false"`
	Last   int    `long:"last" value-name:"N" range:"0," description:"only the last N matching records"`
}

// Main is loop-view.
func Main(env *cli.Env) error {
	return cli.Done(run(env))
}

type command interface {
	run(c *ctx, args []string) error
}

// waiter is a command that, as asked, waits for a store or run that is not
// there yet (tail, --follow): it is not refused a store not made yet.
type waiter interface {
	waits() bool
}

// ctx is what every subcommand runs with.
type ctx struct {
	env   *cli.Env
	st    *store.Store
	style view.Style
	// failures counts records a jq expression failed on; they make exit 1.
	failures int
}

func run(env *cli.Env) error {
	opts := &Options{}
	p := cli.NewParser(env, opts, usage)
	cmds := map[string]command{
		"runs":     &runsCmd{},
		"logs":     &logsCmd{},
		"output":   &outputCmd{},
		"show":     &showCmd{},
		"describe": &describeCmd{},
		"tail":     &tailCmd{},
		"diff":     &diffCmd{},
		"report":   &reportCmd{},
		"tui":      &tuiCmd{},
		"checkout": &checkoutCmd{},
		"events":   &eventsCmd{},
	}
	for _, c := range []struct{ name, short, long string }{
		{"runs", "list runs, newest first", runsHelp},
		{"logs", "a run's iterations, one line each", logsHelp},
		{"output", "a run's validation output", outputHelp},
		{"show", "one file of an iteration, byte-exact", showHelp},
		{"describe", "a run's status, totals and files", describeHelp},
		{"tail", "the running step's output, as it is written", tailHelp},
		{"diff", "what the agent changed in an iteration", diffHelp},
		{"report", "a run as one HTML page to share", reportHelp},
		{"tui", "the full-screen view (also: loop-view alone on a terminal)", tuiHelp},
		{"checkout", "write the work tree after an iteration into a directory", checkoutHelp},
		{"events", "a run's events (RUN_STARTED, STEP_STARTED, ...), live with --follow", eventsHelp},
	} {
		if _, err := p.AddCommand(c.name, c.short, c.long, cmds[c.name]); err != nil {
			panic(err)
		}
	}
	args, err := cli.Parse(env, p, &opts.Common, env.Args)
	if err != nil {
		var fe *flags.Error
		if errors.As(err, &fe) && fe.Type == flags.ErrCommandRequired {
			if cli.CanDrawScreen(env.StdoutFile) { // a person at a terminal: the full-screen view
				st, _, err := settings.Open(env, p, &opts.Common, opts)
				if err != nil {
					return err
				}
				return execTUI(env, st, "")
			}
			return env.UsageError("no subcommand: give one of runs, logs, output, show, describe, tail, diff, report, tui, checkout, events")
		}
		return err
	}
	st, _, err := settings.Open(env, p, &opts.Common, opts)
	if err != nil {
		return err
	}
	if w, ok := cmds[p.Active.Name].(waiter); !ok || !w.waits() {
		if err := settings.Named(&opts.Common, st); err != nil {
			return err
		}
	}
	c := &ctx{env: env, st: st, style: view.Style{Color: env.Color(), Align: env.IsTerminal()}}
	if err := cmds[p.Active.Name].run(c, args); err != nil {
		return err
	}
	if c.failures > 0 {
		return cli.Silent(exitcode.Failure)
	}
	return nil
}

// fail reports one record a jq expression or the decoder failed on; the
// view goes on and the command exits 1.
func (c *ctx) fail(format string, a ...any) {
	c.failures++
	if err := c.env.Stdout.Flush(); err != nil {
		return
	}
	// One line, whatever a stored record held: no terminal escapes.
	fmt.Fprintf(c.env.Stderr, "%s: %s\n", c.env.Name, view.Escape(fmt.Sprintf(format, a...), false))
}

// resolveRun picks the run: the RUN argument, else --run / LOOP_RUN_ID,
// else the newest run. A run that does not exist is exit 1 unless wait.
func (c *ctx) resolveRun(arg, flag string, wait bool) (string, error) {
	id := arg
	if id == "" {
		id = flag
	}
	if id == "" {
		newest, err := view.Newest(c.st)
		if err != nil {
			return "", cli.Failf("%w", err)
		}
		if newest == "" {
			return "", cli.Failf("no runs in store %s", c.st.Root)
		}
		return newest, nil
	}
	if err := store.ValidRunID(id); err != nil {
		return "", c.env.UsageError("%v", err)
	}
	if !wait {
		if err := c.st.FindRun(id); err != nil {
			return "", cli.Failf("%w", err)
		}
	}
	return id, nil
}

// positional splits [RUN [ITER]]; ITER must be a whole number of 1 or more.
func (c *ctx) positional(args []string, max int) (runArg string, iter int, err error) {
	if len(args) > max {
		return "", 0, c.env.UsageError("unexpected argument %q", args[max])
	}
	if len(args) > 0 {
		runArg = args[0]
	}
	if len(args) > 1 {
		iter, err = strconv.Atoi(args[1])
		if err != nil || iter <= 0 {
			return "", 0, c.env.UsageError("iteration %q: want a whole number of 1 or more", args[1])
		}
	}
	return runArg, iter, nil
}

// compile builds the filters of --failed (as failedExpr) and --where, and
// the --jq transform; a bad expression is a usage error (exit 2) pointing
// at the help, as every usage error does.
func (c *ctx) compile(f *filterOpts, failedExpr string, j *jsonOpts) ([]view.Filter, *jqfilter.Filter, error) {
	var filters []view.Filter
	if f != nil && f.Failed {
		filters = append(filters, mustCompile("--failed", failedExpr))
	}
	if f != nil && f.Where != "" {
		w, err := jqfilter.Compile("--where", f.Where, jqfilter.Where)
		if err != nil {
			return nil, nil, c.env.UsageError("%w", err)
		}
		filters = append(filters, w)
	}
	var jq *jqfilter.Filter
	if j != nil && j.JQ != "" {
		var err error
		if jq, err = jqfilter.Compile("--jq", j.JQ, jqfilter.Transform); err != nil {
			return nil, nil, c.env.UsageError("%w", err)
		}
	}
	if f != nil && f.Last < 0 {
		return nil, nil, c.env.UsageError("--last must be 1 or more, got %d", f.Last)
	}
	return filters, jq, nil
}

func mustCompile(flag, expr string) *jqfilter.Filter {
	f, err := jqfilter.Compile(flag, expr, jqfilter.Where)
	if err != nil {
		panic(err) // our own expressions
	}
	return f
}

// writeJSON prints one record: its stored bytes, or the --jq results.
func (c *ctx) writeJSON(raw []byte, value any, jq *jqfilter.Filter, rawOut bool, what func() string) error {
	if jq == nil {
		// loopkit writes these escaped; a line someone else wrote (the
		// store is in the agent's reach) gets the same values, escaped
		if _, err := c.env.Stdout.Write(quote.JSON(raw)); err != nil {
			return err
		}
		return c.env.Stdout.WriteByte('\n')
	}
	var werr error
	err := jq.Each(value, func(v any) error {
		werr = jqfilter.Write(c.env.Stdout, v, rawOut)
		return werr
	})
	if werr != nil {
		return werr
	}
	if err != nil {
		c.fail("%s: --jq %q: %v", what(), jq.Expr, err)
	}
	return nil
}
