package loopview

import (
	"context"
	"errors"
	"fmt"

	"github.com/loopkit/loopkit/internal/agent"
	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/view"
	"github.com/loopkit/loopkit/internal/view/columns"
)

type tailCmd struct {
	runOpt
	JSON     bool         `long:"json" description:"print the agent's raw output lines as NDJSON events (other streams as text lines)"`
	Quiet    bool         `short:"q" long:"quiet" description:"no '==> agent: CMD <==' headers on stderr"`
	Interval cli.Duration `long:"interval" value-name:"D" default:"100ms" description:"how often to look for new output"`
}

func (o *tailCmd) run(c *ctx, args []string) error {
	if len(args) > 1 {
		return c.env.UsageError("unexpected argument %q", args[1])
	}
	if o.Interval.D() <= 0 {
		return c.env.UsageError("--interval must be more than 0")
	}
	arg := ""
	if len(args) == 1 {
		arg = args[0]
	}
	id, err := c.waitRun(arg, o.Run, true)
	if err != nil {
		return err
	}
	t := &view.Tail{St: c.st, RunID: id, Out: c.env.Stdout, Err: c.env.Stderr,
		Flush: c.env.Stdout.Flush, Interval: o.Interval.D()}
	if !o.Quiet {
		t.Header = func(source, command string) error {
			if err := c.env.Stdout.Flush(); err != nil {
				return err
			}
			_, err := fmt.Fprintf(c.env.Stderr, "==> %s: %s <==\n", source, view.Escape(command, false))
			return err
		}
	}
	t.Notice = func(text string) error {
		if err := c.env.Stdout.Flush(); err != nil {
			return err
		}
		// a retry notice quotes the agent's words, escapes and all
		_, err := fmt.Fprintf(c.env.Stderr, "==> %s <==\n", view.Escape(text, false))
		return err
	}
	if !o.JSON {
		// for people: the agent's JSON stream as its text and tool calls,
		// one line each; every other line as written
		// asked at each line: a step runs for minutes, and the person
		// narrows the window meanwhile (no SIGWINCH needed for a line view)
		terminal := c.env.IsTerminal()
		width := func() int {
			if !terminal {
				return 0
			}
			return cli.TerminalWidth(c.env.StdoutFile)
		}
		t.Event = func(ev view.TailEvent) error {
			w := c.env.Stdout
			if ev.Stream == "stderr" {
				if err := c.env.Stdout.Flush(); err != nil {
					return err
				}
				_, err := fmt.Fprintln(c.env.Stderr, view.Escape(*ev.Text, true))
				return err
			}
			if ev.Event == nil { // one line as written: a tab stays one
				_, err := fmt.Fprintln(w, view.Escape(*ev.Text, true))
				return err
			}
			// cut once escaped, in cells: a CJK line cut at width runes
			// took two rows, an escape's \x1b four cells where ESC was one
			for _, l := range agent.Describe(ev.Event, 0) {
				if _, err := fmt.Fprintln(w, columns.Fit(view.Escape(l, false), width())); err != nil {
					return err
				}
			}
			return nil
		}
	} else {
		t.Header = nil
		t.Event = func(ev view.TailEvent) error {
			line, err := ev.Line()
			if err != nil {
				return err
			}
			_, err = c.env.Stdout.Write(line)
			return err
		}
		t.Notice = func(text string) error {
			return t.Event(view.TailEvent{Source: "agent", Stream: "notice", Text: &text})
		}
	}
	t.Ended = func(ri *view.RunInfo) error {
		if err := c.env.Stdout.Flush(); err != nil {
			return err
		}
		_, err := fmt.Fprintf(c.env.Stderr, "%s: %s\n", c.env.Name, view.Escape(endedLine(ri), false))
		return err
	}
	// Agent stderr goes to stderr as it comes; stdout is flushed each poll.
	sigCtx, stop := c.env.Following()
	defer stop()
	err = t.Run(sigCtx)
	if errors.Is(err, context.Canceled) {
		return cli.Stopped(sigCtx)
	}
	return failure(err)
}

// endedLine says that the run tail was asked for had ended before it began,
// and where its steps' output is.
func endedLine(ri *view.RunInfo) string {
	id := ri.Run.RunID
	s := fmt.Sprintf("run %s had ended (%s) before tail began: no step of it runs", id, ri.Run.Status)
	if n := ri.Run.Iteration; n > 0 {
		s += fmt.Sprintf("; 'loop-view logs %s' lists its %d iterations, 'loop-view show %s %d --executor' the last one's agent output", id, n, id, n)
	}
	return s
}

func (o *tailCmd) waits() bool { return true }
