// Package command starts a loopkit command: every binary's main that starts
// a child (and the tests that run a command as a child) goes through Main,
// so the process watcher and the shared conventions of package cli start
// the same way. loop-export starts none and links no watcher.
package command

import (
	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/gitrun"
	"github.com/loopkit/loopkit/internal/proc"
)

// Main runs the command and returns its exit status. A process started as
// the watcher of a child (proc.WatchEnv set) is that watcher instead: it
// never returns.
func Main(name string, run func(*cli.Env) error) int {
	gitrun.Unlocate()
	proc.MaybeWatch()
	return cli.Main(name, run)
}
