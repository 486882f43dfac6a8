// Package initproject is `loop init`: a commented .loop/config listing every
// driver setting with its default, the validation guessed from the project's
// files, a starting TASK.md, and the `loop run` line for an agent on PATH.
package initproject

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/loopkit/loopkit/internal/driverargs"
	"github.com/loopkit/loopkit/internal/lazyre"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/wfile"
)

// Agent is an agent CLI loop run knows, with the command line to run it
// unattended as its documentation gives it.
type Agent struct {
	Program string
	Argv    string
}

// Agents are looked for on PATH in this order; the first found is the one
// the printed `loop run` line uses.
var Agents = []Agent{
	{"claude", "claude -p --output-format stream-json --verbose --permission-mode acceptEdits"},
	{"codex", "codex exec --json -s workspace-write -"},
	{"gemini", "gemini -p {prompt} --output-format stream-json --yolo"},
	{"cursor-agent", "cursor-agent -p --output-format stream-json --force"},
	{"amp", "amp -x --stream-json"},
	{"copilot", "copilot -p {prompt} --output-format json --allow-all-tools"},
}

// Guess is the validation guessed for the project in dir and the file it
// was guessed from; "" when nothing says how the project is tested.
func Guess(dir string) (cmd, from string) {
	has := func(name string) bool {
		fi, err := os.Stat(filepath.Join(dir, name))
		return err == nil && fi.Mode().IsRegular()
	}
	read := func(name string) string {
		b, _ := readCapped(filepath.Join(dir, name))
		return string(b)
	}
	switch {
	case has("go.mod"):
		return "go test ./...", "go.mod"
	case has("package.json") && npmTest(read("package.json")):
		runner := "npm"
		if has("pnpm-lock.yaml") {
			runner = "pnpm"
		} else if has("yarn.lock") {
			runner = "yarn"
		}
		return runner + " test", "package.json's test script"
	case has("pytest.ini") || strings.Contains(read("pyproject.toml"), "pytest") ||
		strings.Contains(read("setup.cfg"), "[tool:pytest]") || (has("pyproject.toml") && isDir(dir, "tests")):
		return "python -m pytest", "the pytest configuration"
	case has("Cargo.toml"):
		return "cargo test", "Cargo.toml"
	case makeTest.MatchString(read("Makefile")) || makeTest.MatchString(read("makefile")) || makeTest.MatchString(read("GNUmakefile")):
		return "make test", "the Makefile's test target"
	}
	return "", ""
}

var makeTest = lazyre.New(`(?m)^test\s*:`)

// npmTest: package.json has a test script other than npm's placeholder.
func npmTest(doc string) bool {
	var p struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal([]byte(doc), &p) != nil {
		return false
	}
	t := p.Scripts["test"]
	return t != "" && !strings.Contains(t, "no test specified")
}

func isDir(dir, name string) bool {
	fi, err := os.Stat(filepath.Join(dir, name))
	return err == nil && fi.IsDir()
}

// readCapped reads a project file someone else wrote: a regular file only,
// at most 1 MiB, never following a link to a FIFO or a device.
func readCapped(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	return io.ReadAll(io.LimitReader(f, 1<<20))
}

// Config is the commented config file: every driver setting that has a
// config key, with its help line and its default, commented out so that
// loopkit's defaults still apply; verify_cmds set when one was guessed.
func Config(verify, from string) string {
	var b strings.Builder
	b.WriteString(`# loopkit settings for this project, read by 'loop run' (written by
# 'loop init'). Flags and LOOP_* variables win over this file; a commented
# key keeps loopkit's default, shown after it. One key=value per line.
`)
	for _, o := range runconfig.Fields() {
		if o.Config == "" {
			continue
		}
		b.WriteString("\n")
		for _, l := range driverargs.Wrap(o.Doc(), 76) {
			if l != "" {
				fmt.Fprintf(&b, "# %s\n", l)
			}
		}
		if o.Flag != "" {
			fmt.Fprintf(&b, "# (flag --%s", o.Flag)
			if o.Env != "" {
				fmt.Fprintf(&b, ", variable %s", o.Env)
			}
			b.WriteString(")\n")
		}
		if o.Config == "verify_cmds" && verify != "" {
			fmt.Fprintf(&b, "# guessed from %s\n%s=%s\n", from, o.Config, verify)
			continue
		}
		fmt.Fprintf(&b, "#%s=%s\n", o.Config, o.Default)
	}
	return b.String()
}

// Task is the starting TASK.md.
func Task(verify string) string {
	check := "the validation"
	if verify != "" {
		check = "`" + verify + "`"
	}
	return `# Task

Say what the agent should change, in the words you would use with a
colleague: the behaviour wanted, where in the code it lives, and what must
not change.

- 

The loop runs the agent, then ` + check + `, again and again until it
passes. Notes the agent leaves between iterations are appended below.
`
}

// Options are `loop init`'s command line.
type Options struct {
	Force bool
	Dir   string // the project: where TASK.md goes and the guess looks
}

// Result is what Init wrote and found, for the messages.
type Result struct {
	Config, Task string // paths written ("" for a TASK.md kept)
	Verify, From string
	Found        []Agent
	KeptTask     bool
}

// ErrExists is an existing config without --force.
type ErrExists struct{ Path string }

func (e *ErrExists) Error() string {
	return fmt.Sprintf("%s exists: left alone (--force writes it again)", e.Path)
}

// Init writes the config into the store st and TASK.md into o.Dir.
func Init(st *store.Store, o Options, lookPath func(string) (string, error)) (*Result, error) {
	r := &Result{Config: st.ConfigFile(), Task: filepath.Join(o.Dir, "TASK.md")}
	if _, err := os.Lstat(r.Config); err == nil && !o.Force {
		return nil, &ErrExists{Path: r.Config}
	}
	r.Verify, r.From = Guess(o.Dir)
	if err := st.Init(); err != nil {
		return nil, err
	}
	if err := store.WriteFileAtomic(r.Config, []byte(Config(r.Verify, r.From)), store.FileMode); err != nil {
		return nil, err
	}
	// the task is the person's work: never written over, even with --force
	// (O_EXCL: not one made meanwhile either); 0644 less the umask, as an
	// editor makes it, for a group's repository or a private umask
	if err := writeNew(r.Task, []byte(Task(r.Verify))); errors.Is(err, fs.ErrExist) {
		r.KeptTask = true
	} else if err != nil {
		return nil, err
	}
	for _, a := range Agents {
		if _, err := lookPath(a.Program); err == nil {
			r.Found = append(r.Found, a)
		}
	}
	return r, nil
}

// RunLine is the `loop run` line to start with: the first agent found, or
// Claude Code's when none is.
func (r *Result) RunLine(prog string) string {
	a := Agents[0]
	if len(r.Found) > 0 {
		a = r.Found[0]
	}
	line := prog + " run --prompt TASK.md"
	if r.Verify == "" {
		line += " --validate 'YOUR TEST COMMAND'"
	}
	return line + " -- " + a.Argv
}

// writeNew writes data to path, which must not exist (a link there
// counts), with mode 0644 less the umask; a write cut short leaves no file.
func writeNew(path string, data []byte) error { return wfile.WriteSynced(path, data, 0o644) }
