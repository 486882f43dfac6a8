// Package step is the loop-step command: run the agent once on a prompt,
// spool what it prints, and print one step record (NDJSON) for loop-record.
package loopstep

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/loopkit/loopkit/internal/agent"
	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/proc"
	"github.com/loopkit/loopkit/internal/progress"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/settings"
	"github.com/loopkit/loopkit/internal/store"
)

const usage = `[OPTIONS] --prompt FILE -- AGENT [ARGS...]
loop-step [OPTIONS] --template FILE -- AGENT [ARGS...]

Examples:
  $ loop-step --prompt TASK.md -- claude -p --output-format json > step.json
  $ loop-step --run R --template TASK.md -- codex exec --json -

Runs the agent once, the prompt on its stdin or in an argument that is
exactly {prompt} (or {prompt_file}: a file holding it). Stores its output
byte-exact and parses it (--format) for tokens, cost, tool calls, the
completion marker, errors and rate limits. Prints one "step" record.

Exit status: the agent's own (its last attempt's; 0 with --exit-zero); 124
timeout, 127 not found, 126 not executable, 128+n killed by signal n; 1
failure, a refused key or rate limit, a record stdout refused; 2 usage.`

// Options are loop-step's flags.
type Options struct {
	cli.Common
	Run             string       `long:"run" env:"LOOP_RUN_ID" value-name:"ID" description:"the run: its progress fills --template; held live" unquote:"false"`
	Prompt          string       `long:"prompt" value-name:"FILE" description:"the prompt ('-': read it from stdin)" unquote:"false"`
	Template        string       `long:"template" value-name:"FILE" description:"render the prompt as loop-progress --template does" unquote:"false"`
	Set             []string     `long:"set" value-name:"NAME=VALUE" description:"fill <<NAME>> in the template (repeatable)" unquote:"false"`
	AppendProgress  bool         `long:"append-progress" description:"add the progress if the template has no <<progress>>"`
	MaxEntries      int          `long:"max-entries" value-name:"N" default:"5" range:"0,100000" config:"progress_max_entries" description:"iterations in the progress block"`
	MaxChars        int          `long:"max-chars" value-name:"N" default:"500" range:"0,10000000" config:"progress_max_chars" description:"characters of output per block entry"`
	Review          string       `long:"review" value-name:"STEP" description:"review the step whose record is in file STEP" unquote:"false"`
	ReviewMarker    string       `long:"review-marker" value-name:"TAG" default:"review" config:"review_marker" description:"tag around a review's verdict" unquote:"false"`
	Plan            string       `long:"plan" value-name:"FILE" description:"task list: quoted; boxes counted unless --review" unquote:"false"`
	Excerpt         string       `long:"excerpt" value-name:"MODE" default:"tail" config:"progress_excerpt" description:"block's output: tail or failures" unquote:"false"`
	AgentSummary    bool         `long:"agent-summary" description:"block adds what the agent said it did"`
	Dir             string       `long:"dir" value-name:"DIR" description:"run the agent there (default: here)" unquote:"false"`
	Base            string       `long:"base" value-name:"COMMIT" description:"the tree before the step: the run's COMMIT" unquote:"false"`
	Phase           string       `long:"phase" value-name:"PHASE" default:"implementation" choice:"implementation" choice:"review" choice:"verification" choice:"watchdog" choice:"merge" choice:"stuck_report" description:"the kind of step" unquote:"false"`
	Timeout         cli.Duration `long:"timeout" value-name:"D" default:"30m" config:"claude_timeout_sec" description:"stop each attempt after D (0: none)"`
	Deadline        int64        `long:"deadline" value-name:"MS" hidden:"true" description:"also end the step, retries included, at this time (Unix ms; the driver's --max-duration)"`
	Grace           cli.Duration `long:"grace" value-name:"D" default:"1s" description:"from SIGTERM to SIGKILL"`
	IdleTimeout     cli.Duration `long:"idle-timeout" value-name:"D" default:"15m" config:"idle_timeout" description:"stop an agent silent for D (0: never)"`
	AfterResult     cli.Duration `long:"after-result-grace" value-name:"D" default:"30s" config:"after_result_grace" description:"stop it D after its result (0: never)"`
	RateLimitPolicy string       `long:"rate-limit-policy" value-name:"P" default:"loop" config:"rate_limit_policy" description:"loop or agent: who retries limits" unquote:"false"`
	Retries         int          `long:"retries" value-name:"N" range:"0,100" config:"claude_retries" description:"retries on a failure, not a timeout"`
	RetryBackoff    cli.Duration `long:"retry-backoff" value-name:"D" default:"5s" config:"claude_retry_backoff_sec" description:"first wait before a retry, then doubled"`
	Format          string       `long:"format" value-name:"FORMAT" default:"auto" config:"agent_format" description:"agent output: auto, claude, codex, gemini, opencode, cursor, amp, copilot, text" unquote:"false"`
	MaxToolCalls    int          `long:"max-tool-calls" value-name:"N" default:"1000" range:"1," config:"max_tool_calls" description:"tool calls kept, the rest counted"`
	Prices          string       `long:"prices" value-name:"FILE" config:"prices" description:"$/Mtok by model, when the agent reports no cost" unquote:"false"`
	Marker          string       `long:"completion-marker" value-name:"TEXT" default:"<promise>COMPLETE</promise>" config:"completion_marker" description:"the agent's \"work is complete\" text" unquote:"false"`
	Mode            string       `long:"completion-mode" value-name:"MODE" default:"trailing" config:"completion_mode" description:"trailing (the last line) or exact (the whole message)" unquote:"false"`
	Tee             bool         `long:"tee" description:"also stream the agent's output live to stderr"`
	NoStore         bool         `long:"no-store" description:"write nothing to the store; output inline only"`
	ExitZero        bool         `long:"exit-zero" description:"exit 0 whatever the agent did"`
	Transcripts     string       `long:"transcripts" value-name:"T" default:"keep" config:"transcripts" hidden:"true" description:"keep, or drop the agent's words (also LOOP_TRANSCRIPTS; hidden: the help is full)" unquote:"false"`
}

// promptArgMax is the largest prompt passed as an argument (loop-drive
// new checks the prompt file against it too).
const promptArgMax = agent.PromptArgMax

// Main is loop-step.
func Main(env *cli.Env) error {
	return cli.Done(run(env))
}

func run(env *cli.Env) error {
	proc.FollowDriver()
	opts := &Options{}
	p := cli.NewParser(env, opts, usage)
	args, err := cli.Parse(env, p, &opts.Common, env.Args)
	if err != nil {
		return err
	}
	set, err := checkFlags(env, opts, args)
	if err != nil {
		return err
	}
	dir, err := workDir(env, opts.Dir)
	if err != nil {
		return err
	}
	st, _, err := settings.Open(env, p, &opts.Common, opts)
	if err != nil {
		return err
	}
	if err := checkSettings(env, opts); err != nil {
		return err
	}

	prompt, err := loadPrompt(env, st, opts, set)
	if err != nil {
		return err
	}
	if opts.Review != "" {
		opts.Phase = "review"
	}
	// the run's record, read once: its notes go in the prompt, and its
	// transcripts setting applies once the step is parsed
	readRun := sync.OnceValues(func() (*record.Run, error) { return st.ReadRun(opts.Run) })
	prompt, reviewed, err := phasePrompt(env, st, opts, readRun, prompt)
	if err != nil {
		return err
	}
	s := &stepRun{env: env, opts: opts, st: st, readRun: readRun, dir: dir, command: cli.Quote(args), prompt: prompt, reviewed: reviewed}
	if o := p.FindOptionByLongName("transcripts"); o != nil {
		s.transcriptsFlag = o.IsSet() && !o.IsSetDefault()
	}
	if opts.Prices != "" {
		if s.prices, err = agent.LoadPrices(opts.Prices); err != nil {
			return env.UsageError("--prices %v", err)
		}
	}
	if opts.Plan != "" && opts.Review == "" { // a review quotes it (phasePrompt), counts nothing
		if s.prompt, s.tasksBefore, s.planPath, s.tasksKnown, err = planBefore(env, opts.Plan, s.prompt, opts.Run != ""); err != nil {
			return err
		}
	}
	if err := s.prepare(args); err != nil {
		return err
	}
	defer s.cleanup()
	if opts.Review == "" { // a reviewer changes nothing: no base to diff against
		// the base's tree and commit are written while the agent runs
		s.waitStaged()
	}
	if opts.Run != "" && st.RunExists(opts.Run) {
		live, err := st.LockLive(opts.Run)
		if err != nil {
			return cli.Failf("%w", err)
		}
		defer live.Unlock()
	}

	s.stepID = s.startStep() // in the spool meta from the agent's start on
	out, err := s.attempts()
	if err != nil {
		return cli.Failf("%w", err)
	}
	s.waitBase()
	rec := s.record(out)
	rec.StepID = s.stepID
	s.planAfter(rec)
	s.verdict(rec)
	s.dropTranscript(rec)
	line, err := record.Marshal(rec)
	if err != nil {
		return err
	}
	if _, err := env.Stdout.Write(append(line, '\n')); err != nil {
		return err
	}
	if res := out.last; res.Err != nil {
		env.Log.Warn(res.Err.Error(), "command", s.command)
	}
	if code := out.last.StatusCode; code != 0 && !opts.ExitZero {
		return cli.Silent(code)
	}
	return nil
}

// checkFlags refuses flag combinations that cannot mean anything and
// parses --set.
func checkFlags(env *cli.Env, opts *Options, args []string) (map[string]string, error) {
	switch {
	case len(args) == 0:
		return nil, env.UsageError("no agent command: give -- AGENT [ARGS...]")
	case opts.Prompt != "" && opts.Template != "":
		return nil, env.UsageError("give either --prompt or --template, not both")
	case opts.Prompt == "" && opts.Template == "":
		return nil, env.UsageError("no prompt: give --prompt FILE ('-' for stdin) or --template FILE")
	case opts.Template == "" && (len(opts.Set) > 0 || opts.AppendProgress):
		return nil, env.UsageError("--set and --append-progress need --template")
	case opts.Base != "" && opts.Run == "":
		return nil, env.UsageError("--base needs --run: it names a commit of the run's git directory")
	}
	if opts.Run != "" {
		if err := store.ValidRunID(opts.Run); err != nil {
			return nil, env.UsageError("%v", err)
		}
	}
	set, err := progress.ParseSets(opts.Set)
	if err != nil {
		return nil, env.UsageError("%v", err)
	}
	return set, nil
}

// checkSettings checks values that may also come from config files, where
// go-flags' own choice checks do not apply.
func checkSettings(env *cli.Env, opts *Options) error {
	switch {
	case !slices.Contains(agent.Formats, opts.Format):
		return env.UsageError("unknown --format %q (want %s)", opts.Format, strings.Join(agent.Formats, ", "))
	case opts.MaxToolCalls < 1:
		return env.UsageError("--max-tool-calls must be 1 or more, got %d", opts.MaxToolCalls)
	case opts.Mode != agent.ModeTrailing && opts.Mode != agent.ModeExact:
		return env.UsageError("unknown --completion-mode %q (want trailing or exact)", opts.Mode)
	case strings.TrimSpace(opts.Marker) == "":
		return env.UsageError("--completion-marker must not be empty")
	case opts.RateLimitPolicy != policyLoop && opts.RateLimitPolicy != policyAgent:
		return env.UsageError("unknown --rate-limit-policy %q (want loop or agent)", opts.RateLimitPolicy)
	case opts.Retries < 0:
		return env.UsageError("--retries must be 0 or more, got %d", opts.Retries)
	case opts.Excerpt != progress.ExcerptTail && opts.Excerpt != progress.ExcerptFailures:
		return env.UsageError("--excerpt %q: want tail or failures", opts.Excerpt)
	case opts.Transcripts != record.TranscriptsKeep && opts.Transcripts != record.TranscriptsDrop:
		return env.UsageError("--transcripts %q: want keep or drop", opts.Transcripts)
	case opts.MaxEntries < 0 || opts.MaxChars < 0:
		return env.UsageError("--max-entries and --max-chars must be 0 or more (got %d and %d)", opts.MaxEntries, opts.MaxChars)
	}
	return nil
}

func workDir(env *cli.Env, flag string) (string, error) {
	dir := flag
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		if gone := store.WorkspaceGone(abs); gone != nil {
			return "", &cli.ExitError{Code: exitcode.Internal, Err: gone, Hint: "move it back to " + abs}
		}
		return "", env.UsageError("--dir %s: not a directory", flag)
	}
	if err := store.SameWorkspace(abs); err != nil {
		return "", cli.Failf("%w", err)
	}
	return abs, nil
}
