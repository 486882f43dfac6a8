package loopstep

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/progress"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/store"
)

// Argument placeholders: an argument that is exactly one of these is
// replaced by the prompt text or the path of a file holding it.
const (
	argPrompt     = "{prompt}"
	argPromptFile = "{prompt_file}"
)

// loadPrompt reads --prompt, or renders --template exactly as
// loop-progress --template does, from the run's durable log.
func loadPrompt(env *cli.Env, st *store.Store, opts *Options, set map[string]string) (string, error) {
	if opts.Prompt != "" {
		var data []byte
		var err error
		switch opts.Prompt {
		case "-":
			data, err = io.ReadAll(env.Stdin)
		case os.DevNull:
			// named by the user, not a file the agent could swap: the
			// empty prompt (safefile refuses character devices)
		default:
			data, err = safefile.ReadFile(opts.Prompt, safefile.DocMax)
		}
		if err != nil {
			return "", cli.Failf("read prompt: %w", pathError(err))
		}
		return string(data), nil
	}
	data, err := safefile.ReadFile(opts.Template, safefile.DocMax)
	if err != nil {
		return "", cli.Failf("read template: %w", pathError(err))
	}
	limits := progress.Limits{MaxEntries: opts.MaxEntries, MaxChars: opts.MaxChars, Excerpt: opts.Excerpt, AgentSummary: opts.AgentSummary}
	var logs []record.IterationLog
	if opts.Run != "" {
		logs, err = progress.Load(st, opts.Run, limits.MaxEntries)
		if errors.Is(err, store.ErrNoSuchRun) {
			// The first step of a run not created yet: no history.
			env.Log.Debug("run has no log yet: empty progress", "run", opts.Run)
			logs, err = nil, nil
		}
		if err != nil {
			return "", cli.Failf("%w", err)
		}
	}
	out, unknown := progress.Fill(record.Text(data), progress.Render(logs, limits), set, opts.AppendProgress)
	for _, name := range unknown {
		env.Log.Warn("template placeholder left unfilled (give --set NAME=VALUE)", "placeholder", "<<"+name+">>", "template", opts.Template)
	}
	return out, nil
}

// agentArgs substitutes the prompt placeholders; stdin reports whether the
// prompt still goes to the agent on stdin (no placeholder used).
func agentArgs(args []string, prompt, promptPath string) (argv []string, stdin bool, err error) {
	argv = make([]string, len(args))
	stdin = true
	for i, a := range args {
		switch a {
		case argPrompt:
			if len(prompt) > promptArgMax {
				return nil, false, &cli.ExitError{Code: exitcode.Usage,
					Err:  fmt.Errorf("prompt is %d bytes, too long for {prompt} (at most %d)", len(prompt), promptArgMax),
					Hint: "pass {prompt_file} instead: the path of a file holding the prompt"}
			}
			// execve ends an argument at its first NUL: the agent would
			// not start ("invalid argument", taken for not found)
			if i := strings.IndexByte(prompt, 0); i >= 0 {
				return nil, false, &cli.ExitError{Code: exitcode.Usage,
					Err:  fmt.Errorf("prompt has a NUL byte at byte %d, which {prompt} cannot carry", i),
					Hint: "pass {prompt_file} instead: the path of a file holding the prompt"}
			}
			a, stdin = prompt, false
		case argPromptFile:
			a, stdin = promptPath, false
		}
		argv[i] = a
	}
	return argv, stdin, nil
}

// pathError keeps an *os.PathError's "open FILE: reason" on one line.
func pathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s %s: %v", pe.Op, pe.Path, pe.Err)
	}
	return err
}
