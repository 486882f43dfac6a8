// Package loopdrive is the loop-drive command: what scripts/loop asks Go
// to do, so that the bash driver only sequences.
package loopdrive

import (
	"fmt"
	"strings"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/nextaction"
	"github.com/loopkit/loopkit/internal/settings"
	"github.com/loopkit/loopkit/internal/store"
)

const usage = `MODE [OPTIONS] [-- AGENT [ARGS...]]
  loop-drive --new [--name NAME] --setting KEY=VALUE... -- AGENT [ARGS...]
  loop-drive --resume --run ID [--max-iterations N]
  loop-drive --next --run ID
  loop-drive --cancel --run ID | --pause --run ID
  loop-drive --mirror --run ID [--global-log-dir DIR]
  loop-drive --merge --run ID

Examples:
  $ loop-drive --next --run RUN
  $ loop-drive --cancel --run RUN

The Go half of scripts/loop. --new checks every setting (exit 2 on the
first bad one, nothing created) and creates a run; --new and --resume take
the run's driver lock, wait for a concurrency slot, print the run's
settings as NUL-terminated KEY=VALUE records, and stay alive holding the
lock until their parent (the driver) exits or sends SIGUSR1.

--next prints the driver's next action as key=value lines (action=iterate,
action=wait or action=stop, ...), decided from run.json and the end of the
log; the watchdog and the store's rate-limit note are asked here too.

--merge merges a completed worktree run's branch into its merge target in
the primary worktree (never pushed) and prints the target's new commit; a
merge that fails is recorded in the run, and --next then fails the run.

Exit status: 0 done; 1 failure; 2 usage or a bad setting; 75 the run is
held by another driver.`

// Options are loop-drive's flags.
type Options struct {
	cli.Common
	Run            string   `long:"run" env:"LOOP_RUN_ID" value-name:"ID" description:"the run" unquote:"false"`
	New            bool     `long:"new" description:"check the settings, create a run and hold it"`
	Name           string   `long:"name" value-name:"NAME" description:"name of the run --new creates" unquote:"false"`
	Setting        []string `long:"setting" value-name:"KEY=VALUE" description:"a setting of the run --new creates (repeatable)" unquote:"false"`
	Resume         bool     `long:"resume" description:"hold an existing run to drive it again"`
	MaxIterations  int      `long:"max-iterations" value-name:"N" description:"with --resume: the run's new total of iterations"`
	MaxConcurrency int      `long:"max-concurrency" value-name:"N" default:"3" config:"max_concurrency" description:"drivers on this machine at once"`
	Next           bool     `long:"next" description:"print the next action"`
	Cancel         bool     `long:"cancel" description:"stop the run's driver and mark the run canceled"`
	Pause          bool     `long:"pause" description:"let the current step finish, then stop the driver; the run is paused"`
	Mirror         bool     `long:"mirror" description:"copy the run's directory into the global store and print its path"`
	Merge          bool     `long:"merge" description:"merge the completed run's branch into its merge target"`
	GlobalLogDir   string   `long:"global-log-dir" value-name:"DIR" config:"global_log_dir" description:"the global store --mirror copies to (default: $XDG_DATA_HOME/loopkit)" unquote:"false"`
	PhaseOptions
}

// Main is loop-drive.
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
	modes := 0
	for _, on := range []bool{opts.New, opts.Resume, opts.Next, opts.Cancel, opts.Pause, opts.Mirror, opts.Merge} {
		if on {
			modes++
		}
	}
	if modes != 1 {
		return env.UsageError("give one of --new, --resume, --next, --cancel, --pause, --mirror, --merge")
	}
	if len(args) > 0 && !opts.New {
		return env.UsageError("unexpected argument %q", args[0])
	}
	if !opts.New {
		if opts.Run == "" {
			return env.UsageError("no run: give --run ID")
		}
		if err := store.ValidRunID(opts.Run); err != nil {
			return env.UsageError("%v", err)
		}
	}
	st, _, err := settings.Open(env, p, &opts.Common, opts)
	if err != nil {
		return err
	}
	switch {
	case opts.New:
		return hold(env, st, opts, args)
	case opts.Resume:
		return hold(env, st, opts, nil)
	case opts.Next:
		return next(env, st, opts.Run)
	case opts.Cancel:
		return cancel(env, st, opts.Run)
	case opts.Mirror:
		return mirror(env, st, opts.Run, opts.GlobalLogDir)
	case opts.Merge:
		return mergeBranch(env, st, opts.Run)
	}
	return pause(env, st, opts.Run)
}

func next(env *cli.Env, st *store.Store, id string) error {
	if !st.RunExists(id) {
		return cli.Failf("no such run: %s", id)
	}
	in, err := nextaction.Load(st, id)
	if err != nil {
		return cli.Failf("%v", err)
	}
	a := nextaction.Decide(in, nextaction.Rules)
	if a.Kind == nextaction.Iterate {
		if a, err = guard(env, st, id, a); err != nil {
			return cli.Failf("%v", err)
		}
	}
	return a.Write(env.Stdout)
}

func parseSettings(kvs []string) (map[string]string, error) {
	m := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--setting %q: want KEY=VALUE", kv)
		}
		m[k] = v
	}
	return m, nil
}
