// Package runcheck checks a run's settings against the outside world
// before anything runs. It is the only user of the shell parser, in its
// own package so that only the command creating runs (loop-drive) links it
// and pays its start-up.
package runcheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/loopkit/loopkit/internal/agent"
	"github.com/loopkit/loopkit/internal/gitrun"
	"github.com/loopkit/loopkit/internal/lookpath"
	"github.com/loopkit/loopkit/internal/proc"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/worktree"
)

// Check checks what runconfig.Resolve cannot, on the outside world,
// before anything runs: the files and directories named exist, the agent
// command can be started and the validation's first command can be found.
// A typo is then one line and exit 2 instead of a run that fails the same
// way on every iteration.
func Check(s *runconfig.Settings) error {
	fields := runconfig.Fields()
	for i := range fields {
		f := &fields[i]
		v := f.Text(s)
		if f.Check == "" || v == "" {
			continue
		}
		if msg := runconfig.PathProblem(v, f.Check == "dir"); msg != "" {
			return fmt.Errorf("%s %s: %s", f.Name(), v, msg)
		}
	}
	if len(s.Agent) == 0 {
		return errors.New("no agent command: give it after --")
	}
	for _, w := range s.Agent { // run.json, JSON, would keep it changed
		if !utf8.ValidString(w) {
			return fmt.Errorf("the agent's command: %q is not UTF-8 text", w)
		}
	}
	if err := GitReadable(s.Dir); err != nil {
		return err
	}
	// a --worktree run records a fresh checkout, not this work tree
	if top := store.GitTop(s.Dir); top != "" && !s.Worktree && s.MergeTarget == "" {
		if err := Unreadable(top); err != nil {
			return err
		}
	}
	// a merge target implies --worktree; outside git, the driver says so
	if top := store.GitTop(s.Dir); top != "" && (s.Worktree || s.MergeTarget != "") {
		if err := worktree.Check(worktree.Spec{Top: top, Base: s.BaseBranch, Prefix: s.RunBranchPrefix,
			Template: s.WorktreePathTemplate}); err != nil {
			return err
		}
		if s.MergeTarget != "" { // else the run fails its merge after its paid iterations
			if err := worktree.CheckBranch(top, s.MergeTarget); err != nil {
				return fmt.Errorf("merge_target_branch %q: %w", s.MergeTarget, err)
			}
			if err := targetRelated(top, s); err != nil {
				return fmt.Errorf("merge_target_branch %q: %w", s.MergeTarget, err)
			}
			if err := targetElsewhere(top, s); err != nil {
				return fmt.Errorf("merge_target_branch %q: %w", s.MergeTarget, err)
			}
		}
	}
	if err := AgentRunnable(s.Agent[0], s.Dir); err != nil {
		return err
	}
	if msg, _ := PromptArg(s); msg != "" { // a SPEC's is checked once found
		return errors.New(msg)
	}
	if err := PromptFile("prompt", s.Prompt); err != nil {
		return err
	}
	if err := ValidationRunnable(s.Validate, s.Dir); err != nil {
		return err
	}
	// the final verification and the reviewer run through sh -c too: a
	// typo there fails every iteration after its paid step; a hook's, the
	// person's news of the run (its end) after all of them
	for _, c := range s.FinalVerify {
		if err := ShellRunnable("--final-verify", c, s.Dir); err != nil {
			return err
		}
	}
	for _, c := range s.OnEvent {
		if err := ShellRunnable("--on-event", c, s.Dir); err != nil {
			return err
		}
	}
	if s.Reviewer != "" {
		return ShellRunnable("--reviewer", s.Reviewer, s.Dir)
	}
	return nil
}

// GitReadable says why git cannot read the repository holding dir (one
// owned by another user and not in safe.directory): every iteration would
// then record that nothing changed, and keep no changes. A folder in no
// repository is fine (the run keeps its own git directory).
func GitReadable(dir string) error {
	top := store.GitTop(dir)
	if top == "" {
		return nil
	}
	// --is-bare-repository first: rev-parse prints it before a bare
	// repository's --show-toplevel fails
	cmd := gitrun.Cmd{Dir: dir}.Command("rev-parse", "--is-bare-repository", "--show-toplevel")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if err == nil {
		return workTreeHere(top, lines[len(lines)-1])
	}
	if lines[0] == "true" {
		return fmt.Errorf("the repository at %s is bare (core.bare): it has no work tree to record; "+
			"run the loop in a worktree of it (git worktree add DIR)", top)
	}
	if !errors.As(err, new(*exec.ExitError)) { // no git ran: a limit (open files, processes), not the repository
		return fmt.Errorf("could not start git to read the repository at %s: %w", top, err)
	}
	first, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
	first = strings.TrimPrefix(first, "fatal: ")
	if strings.Contains(first, "dubious ownership") {
		return fmt.Errorf("git refuses the repository at %s: detected dubious ownership (owned by another user): "+
			"git config --global --add safe.directory %s, or run as its owner", top, top)
	}
	if first == "" {
		first = "git rev-parse failed"
	}
	return fmt.Errorf("git cannot read the repository at %s: %s", top, first)
}

// workTreeHere says why the work tree git names for the repository at top
// (the folder holding its .git) cannot be recorded: core.worktree names
// another folder, and the snapshots, which run git at the top of the work
// tree, would find no repository there (or another one).
func workTreeHere(top, gitTop string) error {
	if gitTop == "" {
		return nil
	}
	// the same folder, whatever the spelling (a symlink, macOS's case)
	a, aerr := os.Stat(top)
	b, berr := os.Stat(gitTop)
	if aerr != nil || berr != nil || os.SameFile(a, b) {
		return nil
	}
	return fmt.Errorf("the repository at %s has its work tree at %s (core.worktree), not the folder holding its .git: "+
		"run the loop in a worktree of it (git worktree add), or git config --unset core.worktree", top, gitTop)
}

// PromptArg checks the prompt file against what an agent argument can
// hold when the agent takes the prompt as {prompt}: an error when it is
// too long already, a warning when the progress block may make it so.
func PromptArg(s *runconfig.Settings) (err, warn string) {
	fi, serr := os.Stat(s.Prompt)
	if s.Prompt == "" || serr != nil {
		return "", ""
	}
	err, warn = agent.PromptArgProblem(s.Agent, "prompt "+s.Prompt, fi.Size())
	if err == "" && fi.Size() <= agent.PromptArgMax {
		if data, rerr := safefile.ReadFile(s.Prompt, agent.PromptArgMax); rerr == nil {
			if msg := agent.PromptArgNUL(s.Agent, "prompt "+s.Prompt, data); msg != "" {
				return msg, ""
			}
		}
	}
	return err, warn
}

// PromptFile says why the text of a prompt (what = "prompt", or "spec")
// cannot be the agent's task: it is empty (none, or only blank lines: every
// paid call of the run would be spent on nothing), or is not UTF-8
// (TextProblem). The file is read once; one that cannot be read is left to
// the run.
func PromptFile(what, path string) error {
	if path == "" {
		return nil
	}
	data, err := safefile.ReadFile(path, safefile.DocMax)
	if err != nil {
		return nil
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return fmt.Errorf("%s %s is empty: write the agent's task in it", what, path)
	}
	if why := TextProblem(data); why != "" {
		return fmt.Errorf("%s %s %s", what, path, why)
	}
	return nil
}

// TextProblem says how a file meant as UTF-8 text is not: UTF-16 (what
// Windows editors and PowerShell 5's > save as "Unicode"), or bytes of
// another encoding (Latin-1, Windows-1252, Shift_JIS). Its prompt reached
// the agent with a U+FFFD for each such byte, or a NUL between letters.
func TextProblem(data []byte) string {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if len(data) >= 2 && (data[0] == 0xff && data[1] == 0xfe || data[0] == 0xfe && data[1] == 0xff ||
		(data[0] == 0) != (data[1] == 0)) {
		return "is UTF-16 text (a Windows editor's \"Unicode\"), not UTF-8: the agent would get it garbled; " +
			"save it as UTF-8 (iconv -f UTF-16 -t UTF-8)"
	}
	if utf8.Valid(data) {
		return ""
	}
	i := 0
	for i < len(data) {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		i += n
	}
	return fmt.Sprintf("is not UTF-8 text (line %d has the byte 0x%02x): the agent would get U+FFFD for each such byte; "+
		"save it as UTF-8 (iconv -f LATIN1 -t UTF-8, or the encoding it is in)", bytes.Count(data[:i], []byte{'\n'})+1, data[i])
}

// AgentRunnable says why the agent command could not be started: not on
// PATH, no such file, or not executable. A relative path with a slash is
// relative to the workspace dir, where the agent will run.
func AgentRunnable(name, dir string) error {
	path := name
	if strings.Contains(name, "/") {
		if !filepath.IsAbs(name) && dir != "" {
			path = filepath.Join(dir, name)
		}
		fi, err := os.Stat(path)
		if err != nil {
			return fmt.Errorf("agent command %s: no such file", name)
		}
		if fi.IsDir() || fi.Mode()&0o111 == 0 {
			return fmt.Errorf("agent command %s: not executable (chmod +x it)", name)
		}
	} else if found, err := lookpath.Find(name); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return fmt.Errorf("agent command %s: not found on PATH", name)
		}
		return fmt.Errorf("agent command %s: %v", name, err)
	} else {
		path = found
	}
	// else the run is created and its first step fails "not found"
	if why := lookpath.Shebang(path); why != "" {
		return fmt.Errorf("agent command %s: %s", name, why)
	}
	return nil
}

// ValidationRunnable says why the validation (run as `sh -c CMD` in dir)
// cannot run: sh cannot read it, it runs no command, or the first command
// the shell would run is no builtin, not on PATH, or a path that is
// missing or not executable. A command it cannot know before running (a
// word with an expansion, PATH set in the string) passes: only a certain
// failure is refused.
func ValidationRunnable(cmd, dir string) error { return ShellRunnable("--validate", cmd, dir) }

// ShellRunnable is ValidationRunnable for the setting flag names (its
// errors start with it): any command loopkit runs with sh -c in dir.
func ShellRunnable(flag, cmd, dir string) error {
	if proc.NeedsShell(cmd, nil) {
		if _, err := lookpath.Find("sh"); err != nil { // else every iteration's validation fails unstarted, after a paid step
			return fmt.Errorf("%s: it runs as sh -c, and no sh is in PATH's folders (PATH=%s): add the folder holding sh (/bin) to PATH",
				flag, os.Getenv("PATH"))
		}
	}
	// sh itself judges the syntax (sh -n reads, runs nothing): a string it
	// rejects fails every iteration with exit 2, each after a paid step
	if err := shellReads(flag, cmd, dir); err != nil {
		return err
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil {
		return nil // sh reads it: a syntax this parser does not know
	}
	if len(f.Stmts) == 0 {
		return fmt.Errorf("%s %q runs no command: give the command to run, such as 'go test ./...'", flag, cmd)
	}
	funcs := map[string]bool{}
	call := firstCall(f.Stmts, funcs)
	if call == nil || len(call.Args) == 0 {
		return nil
	}
	for _, a := range call.Assigns {
		if a.Name != nil && a.Name.Value == "PATH" {
			return nil
		}
	}
	args := call.Args
	name, ok := literal(args[0])
	for ok && !funcs[name] { // env go test: go is the command that must exist
		var wrapper bool
		if args, wrapper = unwrap(name, args[1:]); !wrapper {
			break
		}
		if len(args) == 0 {
			return nil // an option it cannot follow, or no command
		}
		name, ok = literal(args[0])
	}
	if !ok || name == "" || funcs[name] || shellBuiltin(name) {
		return nil
	}
	if strings.Contains(name, "/") {
		path := name
		if !filepath.IsAbs(name) && dir != "" {
			path = filepath.Join(dir, name)
		}
		fi, err := os.Stat(path)
		if err != nil {
			return fmt.Errorf("%s: %s: no such file (it runs in %s)", flag, name, dir)
		}
		if fi.IsDir() || fi.Mode()&0o111 == 0 {
			return fmt.Errorf("%s: %s: not executable (chmod +x it, or run it with sh %s)", flag, name, name)
		}
		return shebang(flag, name, path)
	}
	path, err := exec.LookPath(name)
	if err != nil && !errors.Is(err, exec.ErrDot) {
		return fmt.Errorf("%s: %s: not found on PATH (check the spelling, or give its path)", flag, name)
	}
	return shebang(flag, name, path)
}

// shebang: a script sh finds but the system cannot start (a CRLF #! line)
// is, in sh's words, "not found": after a paid step, and misleading.
func shebang(flag, name, path string) error {
	if why := lookpath.Shebang(path); why != "" {
		return fmt.Errorf("%s: %s: %s", flag, name, why)
	}
	return nil
}

// shellReads runs `sh -n -c cmd` in dir and returns sh's first complaint.
func shellReads(flag, cmd, dir string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, lookpath.Command("sh"), "-n", "-c", cmd)
	c.Args[0] = "sh" // sh names itself by it: "sh: 1: Syntax error", not "/usr/bin/sh: 1: ..."
	c.Dir = dir
	var stderr bytes.Buffer
	c.Stderr = &stderr
	err := c.Run()
	var ee *exec.ExitError
	if err == nil || !errors.As(err, &ee) || ctx.Err() != nil {
		return nil // no sh to ask (ShellRunnable said so), or it could not answer: the run will tell
	}
	msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
	msg = strings.TrimPrefix(strings.TrimPrefix(msg, "sh: "), "-c: ")
	if msg == "" {
		msg = ee.String()
	}
	msg = strings.Map(func(r rune) rune { // one line, no terminal escapes
		if unicode.IsGraphic(r) {
			return r
		}
		return '?'
	}, msg)
	return fmt.Errorf("%s: sh cannot read it: %s (fix its syntax: it runs as sh -c)", flag, msg)
}

// unwrap: for a command that runs the command in its arguments (exec,
// command, env, nice, nohup, timeout), those arguments from that command
// on; none when an option leaves it unclear. wrapper is false for any
// other command.
func unwrap(name string, args []*syntax.Word) (rest []*syntax.Word, wrapper bool) {
	switch name {
	case "exec", "command", "env", "nice", "nohup", "timeout":
	default:
		return nil, false
	}
	skip := 0
	for ; skip < len(args); skip++ {
		w, ok := literal(args[skip])
		if !ok {
			return nil, true
		}
		switch {
		case name == "env" && (w == "-i" || w == "-" || (strings.Contains(w, "=") && w[0] != '-')):
			continue
		case name == "nice" && skip == 0 && w == "-n":
			skip++
			continue
		case name == "timeout" && skip == 0 && w != "" && w[0] != '-':
			continue // the duration
		case w != "" && w[0] == '-':
			return nil, true
		}
		break
	}
	if skip >= len(args) {
		return nil, true
	}
	return args[skip:], true
}

// firstCall is the first simple command the shell runs in stmts, noting
// the functions defined before it; nil when it cannot tell (a loop or a
// case whose body may not run).
func firstCall(stmts []*syntax.Stmt, funcs map[string]bool) *syntax.CallExpr {
	for _, st := range stmts {
		switch c := st.Cmd.(type) {
		case *syntax.FuncDecl:
			if c.Name != nil {
				funcs[c.Name.Value] = true
			}
			continue
		case *syntax.CallExpr:
			if len(c.Args) == 0 {
				continue // assignments alone: the next command runs
			}
			return c
		case *syntax.BinaryCmd:
			return firstCall([]*syntax.Stmt{c.X}, funcs)
		case *syntax.Subshell:
			return firstCall(c.Stmts, funcs)
		case *syntax.Block:
			return firstCall(c.Stmts, funcs)
		case *syntax.IfClause:
			return firstCall(c.Cond, funcs)
		case *syntax.WhileClause:
			return firstCall(c.Cond, funcs)
		case *syntax.TimeClause:
			if c.Stmt != nil {
				return firstCall([]*syntax.Stmt{c.Stmt}, funcs)
			}
		}
		return nil
	}
	return nil
}

// literal is a word's text when it has no expansion, glob or escape.
func literal(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	s := b.String()
	if strings.ContainsAny(s, `\*?[`) {
		return "", false
	}
	return s, true
}

// shellBuiltin: the commands sh finds without PATH: POSIX's special and
// regular builtins, and those of dash and bash (sh may be either).
func shellBuiltin(name string) bool {
	switch name {
	case ".", ":", "[", "[[", "alias", "bg", "break", "builtin", "cd", "command", "continue",
		"declare", "echo", "eval", "exec", "exit", "export", "false", "fc", "fg", "getopts", "hash", "jobs", "kill", "let",
		"local", "printf", "pwd", "read", "readonly", "return", "set", "shift", "source", "test", "times", "trap",
		"true", "type", "typeset", "ulimit", "umask", "unalias", "unset", "wait":
		return true
	}
	return false
}
