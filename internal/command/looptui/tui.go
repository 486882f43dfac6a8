// Package looptui is loop-tui, the full-screen view behind 'loop-view tui':
// a separate binary so that the other commands (and make demo) build
// without the terminal UI libraries.
package looptui

import (
	"os"
	"syscall"

	tea "charm.land/bubbletea/v2"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/settings"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/tui"
)

const usage = `[OPTIONS] [RUN]

Examples:
  $ loop-view tui
  $ loop-tui RUN

The full-screen view of a store: the runs list; per run its live step
(s: the agent's messages, tool calls and retry notices as they come, the
validation's output, elapsed time), the Logs view (L: one line per
iteration; enter opens its final message and diff), the Output view (o)
and Describe (d). p pauses, r resumes and C cancels the selected run, each
after y, through loop-drive and the driver as 'loop pause|resume|cancel'
do. / filters iterations with a jq expression; ? lists every key; esc
goes back; q quits. Colour follows NO_COLOR and the terminal; works from
80x24.`

// Options are loop-tui's flags.
type Options struct {
	cli.Common
	Run string `long:"run" env:"LOOP_RUN_ID" value-name:"ID" description:"open this run (a RUN argument wins; default: the runs list)" unquote:"false"`
}

// Main is loop-tui.
func Main(env *cli.Env) error {
	return cli.Done(run(env))
}

func run(env *cli.Env) error {
	opts := &Options{}
	p := cli.NewParser(env, opts, usage)
	args, err := cli.Parse(env, p, &opts.Common, env.Args)
	if err != nil {
		return err
	}
	if len(args) > 1 {
		return env.UsageError("unexpected argument %q", args[1])
	}
	if len(args) == 1 {
		opts.Run = args[0]
	}
	st, _, err := settings.Open(env, p, &opts.Common, opts)
	if err != nil {
		return err
	}
	if opts.Run != "" {
		if err := store.ValidRunID(opts.Run); err != nil {
			return env.UsageError("%v", err)
		}
		if err := st.FindRun(opts.Run); err != nil {
			return cli.Failf("%w", err)
		}
	}
	if !cli.IsTerminal(os.Stdin) || !cli.IsTerminal(env.StdoutFile) {
		return cli.Usagef("needs a terminal (stdin and stdout); for scripts use loop-view logs, output or describe")
	}
	if cli.DumbTerminal() {
		return cli.Usagef("TERM=%q cannot draw the full-screen view: set TERM (xterm-256color), or use loop-view logs, output or describe", os.Getenv("TERM"))
	}
	m, err := tui.New(st, opts.Run, cli.ColorFor(env.StdoutFile), tui.FindTools())
	if err != nil {
		return cli.Failf("%w", err)
	}
	if err := env.Stdout.Flush(); err != nil {
		return err
	}
	// signals end the view as they end any command, with 128+n once the
	// terminal is back: Bubble Tea's own handler ended SIGTERM with exit 0
	ctx, _, stop := cli.OnSignals(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	_, err = tea.NewProgram(m, tea.WithContext(ctx), tea.WithoutSignalHandler(), tea.WithInput(os.Stdin), tea.WithOutput(env.StdoutFile)).Run()
	if sig, ok := cli.StopSignal(ctx); ok {
		return cli.Silent(128 + int(sig))
	}
	if err != nil {
		return cli.Failf("%w", err)
	}
	return nil
}
