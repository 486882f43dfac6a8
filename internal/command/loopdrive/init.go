package loopdrive

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/driverargs"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/initproject"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/trust"
	"github.com/loopkit/loopkit/internal/userdir"
)

const initHelp = `usage: %[1]s init [--force]

Examples:
  $ %[1]s init
  $ %[1]s init --force      # .loop/config written again, TASK.md kept

Writes .loop/config (every setting with its default, commented, and the
validation guessed from go.mod, package.json, pytest, Cargo.toml or a
Makefile's test target as verify_cmds) and a starting TASK.md (an
existing one is kept), then prints the line that starts a run with an
agent found on PATH. An existing .loop/config is left alone (exit 1)
unless --force.
`

// initProject is `loop init`: the arguments after --init.
func initProject(env *cli.Env, args []string) error {
	prog := driverargs.Prog()
	o := initproject.Options{Dir: "."}
	for _, a := range args {
		switch a {
		case "-h", "--help":
			_, err := fmt.Fprintf(env.Stdout, initHelp, prog)
			return err
		case "--force":
			o.Force = true
		default:
			fmt.Fprintf(env.Stderr, "loop: unknown flag %s (see %s init --help)\n", a, prog)
			return cli.Silent(exitcode.Usage)
		}
	}
	cwd, err := cli.Getwd()
	if err != nil {
		return err
	}
	o.Dir = cwd
	st, err := store.Resolve(os.Getenv("LOOP_STORE"), cwd)
	if err != nil {
		return cli.Failf("%w", err)
	}
	// where the config's acceptance is kept, before the config is written:
	// without it init wrote a config that no run would obey
	if err := checkPlaces(st, cwd); err != nil {
		return err
	}
	if _, err := userdir.State(); err != nil {
		return cli.Failf("init: %w", err)
	}
	r, err := initproject.Init(st, o, exec.LookPath)
	var ex *initproject.ErrExists
	if errors.As(err, &ex) {
		return cli.Failf("%w", err)
	} else if err != nil {
		return cli.Failf("init: %w", err)
	}
	// the person ran init: the config it wrote is theirs, its commands
	// run without a --trust-config (a later change of it is refused)
	if err := trust.Accept(r.Config); err != nil {
		return cli.Failf("init: accept %s: %w", r.Config, err)
	}
	say := func(format string, a ...any) { fmt.Fprintf(env.Stderr, "loop: "+format+"\n", a...) }
	if r.Verify != "" {
		say("wrote %s: validation %q, guessed from %s", r.Config, r.Verify, r.From)
	} else {
		say("wrote %s: no validation guessed; set verify_cmds there or give --validate", r.Config)
	}
	if msg := runconfig.PathProblem(r.Task, false); r.KeptTask && msg != "" {
		say("%s: %s: write the task in a file and give it with --prompt FILE", r.Task, msg)
	} else if r.KeptTask {
		say("kept %s", r.Task)
	} else {
		say("wrote %s: say there what the agent should do", r.Task)
	}
	var names []string
	for _, a := range r.Found {
		names = append(names, a.Program)
	}
	if len(names) > 0 {
		say("agents on PATH: %s", strings.Join(names, ", "))
	} else {
		say("no agent on PATH (looked for claude, codex, gemini, cursor-agent, amp, copilot); install one")
	}
	// a line to paste: the driver's path as typed may hold a space or a quote
	_, err = fmt.Fprintf(env.Stdout, "%s\n", r.RunLine(cli.Quote([]string{prog})))
	return err
}
