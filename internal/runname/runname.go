// Package runname gives a run its human label: from the spec (its first
// heading, else its file name) or from a naming agent's short answer. The
// label is shown, never used in a path: run directories keep their ids.
package runname

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/loopkit/loopkit/internal/agent"
	"github.com/loopkit/loopkit/internal/proc"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/userdir"
)

// MaxLen is the longest label, in characters.
const MaxLen = 64

// Sources of a name, recorded as run.json's name_source.
const (
	SourceFlag     = "flag"
	SourceSpecSlug = "spec_slug"
	SourceAgent    = "agent"
	// SourceHaiku: the run's own agent named it, on a small model (seed
	// 003's default mode, run_naming_mode=haiku).
	SourceHaiku = "haiku"
)

// DefaultModel is the naming model of run_naming_mode=haiku when
// run_naming_model is unset (seed 003).
const DefaultModel = "haiku"

const ()

// Clean makes a naming agent's answer a label: the first non-empty line,
// markup and quotes around it dropped, only printable ASCII (what Prompt
// asks for), spaces collapsed, at most MaxLen characters (cut at a word
// when one ends late enough).
func Clean(text string) string { return clean(text, true) }

// clean is Clean; with ascii false it keeps every printable character, in
// the person's language (no control, no direction override, no byte that
// is not UTF-8): a spec's heading is their words, and "Café crème" was
// shown "Caf crme", a Japanese heading not at all.
func clean(text string, ascii bool) string {
	line := ""
	for l := range strings.SplitSeq(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			line = l
			break
		}
	}
	line = strings.TrimLeft(line, "#*->` ")
	var b strings.Builder
	space := false
	for _, r := range line {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
		case unicode.IsPrint(r) && r != utf8.RuneError && (!ascii || r < 0x7f):
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteRune(r)
		}
	}
	s := strings.Trim(b.String(), "\"'`*_ .")
	if r := []rune(s); len(r) > MaxLen {
		split := r[MaxLen] != ' '
		s = string(r[:MaxLen])
		if i := strings.LastIndexByte(s, ' '); split && i > 0 && utf8.RuneCountInString(s[:i]) > MaxLen/2 {
			s = s[:i]
		}
		s = strings.TrimRight(s, " ")
	}
	return s
}

// SpecSlug is the spec's label: its first Markdown heading, else its file
// name without the extension.
func SpecSlug(specPath string) string {
	if f, err := safefile.Open(specPath); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for n := 0; sc.Scan() && n < 50; n++ {
			if l := strings.TrimSpace(sc.Text()); strings.HasPrefix(l, "#") {
				if s := clean(strings.TrimLeft(l, "# "), false); s != "" {
					return s
				}
			}
		}
	}
	base := strings.TrimSuffix(filepath.Base(specPath), filepath.Ext(specPath))
	if s := clean(base, false); s != "" {
		return s
	}
	return "run"
}

// specQuoteBytes bounds the spec text a naming prompt quotes.
const specQuoteBytes = 4 << 10

// Prompt asks a naming agent for a label for the task in spec.
func Prompt(spec string) string {
	spec = record.HeadBytes(spec, specQuoteBytes) // not half a character, which the agent reads as U+FFFD
	return "Give a short name (at most 6 words, plain ASCII, no quotes, no punctuation at the end) for the coding task below. Answer with the name alone on one line.\n\n---\n" + spec + "\n---\n"
}

// Answer is what a naming agent call gave, and what the call was: the
// run records it as one of its agent calls, so its cost is counted.
type Answer struct {
	Name  string
	Usage agent.Usage
	// ExitCode is the agent's status (-1: killed or timed out; nil: it
	// did not start); the rest are read from its output.
	ExitCode       *int
	Started, Ended time.Time
	FinalMessage   string
	Format, Model  string
}

// placeholders fills the agent's {prompt} (the text) and {prompt_file} (a
// temporary file holding it) arguments, as loop-step does for the run's
// steps; with either the agent's stdin is empty. done removes the file.
func placeholders(argv []string, prompt string) (out []string, stdin string, done func(), err error) {
	out, stdin, done = slices.Clone(argv), prompt, func() {}
	for i, arg := range out {
		switch arg {
		case "{prompt}":
			out[i], stdin = prompt, ""
		case "{prompt_file}":
			f, ferr := userdir.CreateTemp("loopkit-naming-*.prompt")
			if ferr != nil {
				return nil, "", done, fmt.Errorf("naming prompt file: %w", ferr)
			}
			_, werr := f.WriteString(prompt)
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			name := f.Name()
			prev := done
			done = func() { prev(); os.Remove(name) }
			if werr != nil {
				done()
				return nil, "", func() {}, fmt.Errorf("naming prompt file: %w", werr)
			}
			out[i], stdin = name, ""
		}
	}
	return out, stdin, done, nil
}

// outputCap bounds what the naming agent's answer is read from: a name
// is a line, and a command printing without end must not fill memory.
const outputCap = 4 << 20

// Ask runs the naming agent argv with the prompt on stdin (or in its
// {prompt} or {prompt_file} argument), in dir, and
// reads its answer (any format loop-step reads). Any failure — it does not
// start, exits non-zero, times out, or answers nothing usable — is an
// error: the caller falls back to the spec's slug. It runs as an agent
// step does (proc.Run): in a session of its own, stopped whole at the
// timeout, with the children's environment, killed if this process dies.
func Ask(ctx context.Context, argv []string, prompt, dir string, timeout time.Duration) (*Answer, error) {
	if len(argv) == 0 {
		return nil, errors.New("no naming agent command")
	}
	argv, stdin, done, err := placeholders(argv, prompt)
	if err != nil {
		return nil, err
	}
	defer done()
	// a signal proc.Run passes on to the call still ends this process
	// afterwards, as it did before the call
	sigs := make(chan os.Signal, 1)
	proc.NotifyStop(sigs)
	res, err := proc.Run(proc.Spec{Args: argv, Dir: dir, Stdin: strings.NewReader(stdin), Timeout: timeout,
		InlineCap: outputCap, ParentDeath: true, Stop: ctx.Done()})
	signal.Stop(sigs)
	select {
	case s := <-sigs:
		signal.Reset(s)
		_ = syscall.Kill(os.Getpid(), s.(syscall.Signal))
	default:
	}
	if err != nil {
		return nil, fmt.Errorf("naming agent: %w", err)
	}
	a := &Answer{Started: res.Started, Ended: res.Ended}
	if res.PID == 0 { // it did not start: nothing was spent
		return a, fmt.Errorf("naming agent: %v", res.Err)
	}
	code := res.ExitCode
	a.ExitCode = &code
	p, perr := agent.Parse(bytes.NewReader(res.Stdout), agent.FormatAuto, nil)
	if perr == nil {
		a.Usage, a.FinalMessage, a.Format, a.Model = p.Usage, p.FinalMessage, p.Format, p.Model
	}
	switch {
	case res.TimedOut:
		return a, fmt.Errorf("naming agent timed out after %s", timeout)
	case res.StatusCode != 0 || res.Err != nil:
		msg := strings.TrimSpace(string(res.Stderr))
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		why := fmt.Sprintf("exit status %d", res.StatusCode)
		if res.Err != nil {
			why = res.Err.Error()
		}
		return a, fmt.Errorf("naming agent: %s%s", why, prefixed(msg))
	case res.StdoutTrunc:
		return a, fmt.Errorf("naming agent printed more than %d MiB: no name", outputCap>>20)
	case perr != nil:
		return a, fmt.Errorf("naming agent output: %v", perr)
	}
	if a.Name = Clean(p.FinalMessage); a.Name == "" {
		return a, errors.New("naming agent gave no usable name")
	}
	return a, nil
}

func prefixed(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}
