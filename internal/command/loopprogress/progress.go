// Package progress is the loop-progress command: render the progress block
// of a run (or of records on stdin), optionally into a prompt template.
package loopprogress

import (
	"errors"
	"fmt"
	"os"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/progress"
	"github.com/loopkit/loopkit/internal/quote"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/settings"
	"github.com/loopkit/loopkit/internal/store"
)

const usage = `[OPTIONS] [RUN]
loop-progress --from - < RECORDS
loop-progress --run ID --template PROMPT.md [--set NAME=VALUE ...]

Examples:
  $ loop-progress RUN
  $ loop-progress --run RUN --template TASK.md --append-progress
  $ loop-progress RUN --excerpt failures --agent-summary
  $ loop-view logs RUN --json --failed | loop-progress --from -

Renders the progress block of a run's last iterations: per iteration the
command, exit code, duration, files changed and the last --max-chars
characters of its output (stdout, else stderr). --excerpt failures keeps
instead, in the same --max-chars, the lines that say what failed (go test,
pytest, Jest, Vitest, cargo, TAP, compiler errors, error: lines) without
colour codes, then the end; --agent-summary adds an **Agent:** line, the
start of the agent's final message. It reads only the end of the run's
iterations.jsonl. --from reads IterationLog or validation records (NDJSON)
instead.

--template prints the file with <<progress>> replaced by the block; lines
between a line <<#if progress>> and a line <</if>> are kept only when there
is progress; <<name>> is filled by --set name=VALUE. --append-progress ends
a template that has no <<progress>> with a "## Previous Iterations" section
(only when there is progress). --format json prints the entries as one JSON
array; --save also stores the block as run.json's progress. The text is
printed as the prompt gets it; on a terminal, control bytes show escaped.

Exit status: 0 rendered (also when there is no history: the block is empty);
1 no such run, or I/O failure; 2 usage; 65 bad records on stdin.`

// Options are loop-progress's flags.
type Options struct {
	cli.Common
	Run            string   `long:"run" env:"LOOP_RUN_ID" value-name:"ID" description:"run whose iterations.jsonl to read" unquote:"false"`
	From           string   `long:"from" value-name:"FILE" description:"read IterationLog or validation records from FILE ('-': stdin) instead of the run" unquote:"false"`
	MaxEntries     int      `long:"max-entries" value-name:"N" default:"5" range:"0,100000" config:"progress_max_entries" description:"iterations shown, the last ones"`
	MaxChars       int      `long:"max-chars" value-name:"N" default:"500" range:"0,10000000" config:"progress_max_chars" description:"characters of each iteration's output kept (its end)"`
	Excerpt        string   `long:"excerpt" value-name:"MODE" default:"tail" config:"progress_excerpt" choice:"tail" choice:"failures" description:"tail: the end of each output; failures: the lines that say what failed, then the end" unquote:"false"`
	AgentSummary   bool     `long:"agent-summary" description:"add an **Agent:** line: the first 200 characters of the agent's final message"`
	Format         string   `long:"format" value-name:"FORMAT" default:"text" choice:"text" choice:"json" description:"text: the markdown block; json: the same entries as one JSON array" unquote:"false"`
	Template       string   `long:"template" value-name:"FILE" description:"print FILE with <<progress>> and <<name>> placeholders filled" unquote:"false"`
	Set            []string `long:"set" value-name:"NAME=VALUE" description:"fill <<NAME>> in the template (repeatable)" unquote:"false"`
	AppendProgress bool     `long:"append-progress" description:"when the template has no <<progress>>, append a 'Previous Iterations' section (only when there is progress)"`
	Save           bool     `long:"save" description:"also store the block as the run's progress in run.json"`
}

// Main is loop-progress.
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
		opts.Run = args[0] // a positional RUN wins over --run and LOOP_RUN_ID
	}
	set, err := checkOptions(env, opts)
	if err != nil {
		return err
	}
	st, _, err := settings.Open(env, p, &opts.Common, opts)
	if err != nil {
		return err
	}
	if opts.MaxEntries < 0 || opts.MaxChars < 0 {
		return env.UsageError("--max-entries and --max-chars must be 0 or more (got %d and %d)", opts.MaxEntries, opts.MaxChars)
	}
	limits := progress.Limits{MaxEntries: opts.MaxEntries, MaxChars: opts.MaxChars, Excerpt: opts.Excerpt, AgentSummary: opts.AgentSummary}

	var logs []record.IterationLog
	if opts.Save {
		logs, err = loadAndSave(env, st, opts, limits)
	} else {
		logs, err = load(env, st, opts, limits.MaxEntries)
	}
	if err != nil {
		return err
	}
	block := progress.Render(logs, limits)
	if opts.Format == "json" {
		return printJSON(env, progress.Entries(logs, limits))
	}
	if opts.Template == "" {
		_, err := env.Stdout.WriteString(shown(env, block))
		return err
	}
	return fill(env, opts, block, set)
}

// checkOptions refuses combinations that cannot mean anything and parses --set.
func checkOptions(env *cli.Env, opts *Options) (map[string]string, error) {
	if opts.Run != "" {
		if err := store.ValidRunID(opts.Run); err != nil {
			return nil, env.UsageError("%v", err)
		}
	}
	switch {
	case opts.From == "" && opts.Run == "":
		return nil, env.UsageError("no run: give RUN, --run ID (or LOOP_RUN_ID), or --from -")
	case opts.Save && opts.Run == "":
		return nil, env.UsageError("--save needs a run (RUN, --run ID or LOOP_RUN_ID)")
	case opts.Format == "json" && opts.Template != "":
		return nil, env.UsageError("--format json renders entries, not a template: drop --template or --format")
	case opts.Template == "" && (len(opts.Set) > 0 || opts.AppendProgress):
		return nil, env.UsageError("--set and --append-progress need --template")
	}
	set, err := progress.ParseSets(opts.Set)
	if err != nil {
		return nil, env.UsageError("%v", err)
	}
	return set, nil
}

func fill(env *cli.Env, opts *Options, block string, set map[string]string) error {
	data, err := safefile.ReadFile(opts.Template, safefile.DocMax)
	if err != nil {
		return cli.Failf("read template: %w", unwrapPath(err))
	}
	out, unknown := progress.Fill(record.Text(data), block, set, opts.AppendProgress)
	for _, name := range unknown {
		env.Log.Warn("template placeholder left unfilled (give --set NAME=VALUE)", "placeholder", "<<"+name+">>", "template", opts.Template)
	}
	_, err = env.Stdout.WriteString(shown(env, out))
	return err
}

// shown is the prompt text as written for the agent, byte for byte, when
// piped; on a terminal, where a person reads it, the validation's and the
// agent's escape sequences in it are shown, not obeyed (as loop-view diff).
func shown(env *cli.Env, text string) string {
	if env.IsTerminal() {
		return quote.Escape(text, true)
	}
	return text
}

func printJSON(env *cli.Env, v any) error {
	line, err := record.Marshal(v)
	if err != nil {
		return err
	}
	_, err = env.Stdout.Write(append(line, '\n'))
	return err
}

// unwrapPath keeps an *os.PathError's "open FILE: reason" as one line.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s %s: %v", pe.Op, pe.Path, pe.Err)
	}
	return err
}
