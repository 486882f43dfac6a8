package loopview

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/store"
)

const tuiHelp = `[OPTIONS] [RUN]

Examples:
  $ loop-view tui
  $ loop-view tui RUN

The full-screen view: runs, and per run its live step (s), the Logs (L),
Output (o) and Describe (d) views, following a running run; p, r and C
pause, resume and cancel it after y; ? lists the keys. 'loop-view' alone
on a terminal opens it too. It is the loop-tui command (built by make tui or
make install), kept apart so the other commands build without it.`

type tuiCmd struct {
	runOpt
}

func (o *tuiCmd) run(c *ctx, args []string) error {
	if len(args) > 1 {
		return c.env.UsageError("unexpected argument %q", args[1])
	}
	id := o.Run
	if len(args) == 1 {
		id = args[0]
	}
	if id != "" {
		if err := store.ValidRunID(id); err != nil {
			return c.env.UsageError("%v", err)
		}
	}
	return execTUI(c.env, c.st, id)
}

// execTUI replaces this process with loop-tui, found beside loop-view or
// on PATH, so that it owns the terminal.
func execTUI(env *cli.Env, st *store.Store, id string) error {
	path := ""
	if self, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(self), "loop-tui"); isExecutable(p) {
			path = p
		}
	}
	if path == "" {
		p, err := exec.LookPath("loop-tui")
		if err != nil {
			return &cli.ExitError{Code: exitcode.Failure, Err: errors.New("loop-tui not found beside loop-view or on PATH"),
				Hint: "build it with 'make tui' (or go install ./cmd/loop-tui)"}
		}
		path = p
	}
	argv := []string{"loop-tui", "--store", st.Root}
	if id != "" {
		argv = append(argv, id)
	}
	if err := env.Stdout.Flush(); err != nil {
		return err
	}
	return cli.Failf("run %s: %w", path, syscall.Exec(path, argv, os.Environ()))
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

func (o *tuiCmd) waits() bool { return true }
