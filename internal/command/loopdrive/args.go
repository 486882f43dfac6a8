package loopdrive

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/driverargs"
	"github.com/loopkit/loopkit/internal/drivesettings"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/store"
)

// holdOptions are what --new and --resume hold a run with, read from the
// driver's own command line.
type holdOptions struct {
	New            bool
	Run, Name      string
	MaxIterations  int    // --resume: the run's new total, 0 to keep it
	MaxDuration    string // --resume: the run's new --max-duration, "" to keep it
	MaxConcurrency int
	Settings       map[string]string // --new: the run's settings
	PhaseOptions
}

// phaseKeys are the driver's options that shape the run being created
// (PhaseOptions, its name, its queue) rather than being stored settings.
var phaseKeys = []string{"name", "max_concurrency", "specs_dir", "plans_dir", "reviewer", "review_marker",
	"final_verify", "final_verify_cmds", "run_naming_mode", "run_naming_model", "max_runs_per_workspace",
	"queue_policy", "base_branch", "run_branch_prefix", "worktree_path_template", "trust_config"}

// trustFlag: the driver's own flags (before the agent's argv) hold
// --trust-config.
func trustFlag(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--trust-config" {
			return true
		}
	}
	return false
}

// driverLine runs --new or --resume on the arguments of `scripts/loop run`
// or `resume`, with the environment and config files read here. Its
// output is the driver's records: a usage error goes to stderr, followed by
// exit=2; help is an out= record, since stdout is the driver's pipe.
func driverLine(env *cli.Env, mode string, args []string) error {
	cwd, err := os.Getwd()
	if err != nil {
		return exitRecord(env, cli.Failf("current directory: %w", err))
	}
	st, err := store.Resolve(os.Getenv("LOOP_STORE"), cwd)
	if err != nil {
		return exitRecord(env, cli.Failf("%w", err))
	}
	// a new run obeys the commands of a config file only when the person
	// accepted it as it is (--trust-config accepts it now)
	cfg, err := loadConfig(env, st, mode == "--new", mode == "--new" && trustFlag(args))
	if err != nil {
		return exitRecord(env, err)
	}
	src := driverargs.Sources{Getenv: os.Getenv, Config: map[string]string{}}
	for k, s := range cfg {
		src.Config[k] = s.Value
		if !cli.KnownKey(k) {
			env.Log.Warn("unknown config key", "key", k, "file", s.File, "line", s.Line)
		}
	}
	opts, err := readLine(mode, args, src)
	var ue *driverargs.UsageError
	switch {
	case errors.As(err, &ue):
		// one line: the help would hide the message that matters
		sub := map[string]string{"--new": "run", "--resume": "resume"}[mode]
		fmt.Fprintf(env.Stderr, "loop: %s (see %s %s --help)\n", ue.Msg, driverargs.Prog(), sub)
		emit(env, "exit", fmt.Sprint(exitcode.Usage))
		return cli.Silent(exitcode.Usage)
	case err != nil:
		return exitRecord(env, err)
	case opts == nil: // help
		emit(env, "out", driverargs.Help())
		emit(env, "exit", "0")
		return nil
	}
	emit(env, "store", st.Root)
	return hold(env, st, opts)
}

// readLine parses the driver's arguments into holdOptions; nil for help.
func readLine(mode string, args []string, src driverargs.Sources) (*holdOptions, error) {
	var set map[string]string
	opts := &holdOptions{New: mode == "--new"}
	if opts.New {
		r, err := driverargs.ParseRun(args, src)
		if err != nil || r.Help {
			return nil, err
		}
		set, opts.Run, opts.Spec, opts.Plan = r.Set, os.Getenv("LOOP_RUN_ID"), r.Spec, r.Plan
		opts.FinalVerify = r.Lists["final_verify"]
		set[drivesettings.AgentKey] = drivesettings.EncodeAgent(r.Agent)
	} else {
		r, err := driverargs.ParseResume(args, src)
		if err != nil || r.Help {
			return nil, err
		}
		set, opts.Run, opts.MaxIterations, opts.MaxDuration = r.Set, r.Run, r.MaxIterations, r.MaxDuration
	}
	if opts.Run != "" {
		if err := store.ValidRunID(opts.Run); err != nil {
			return nil, cli.Usagef("%v", err)
		}
	}
	o := &opts.PhaseOptions
	o.SpecsDir, o.PlansDir, o.Reviewer, o.ReviewMarker = set["specs_dir"], set["plans_dir"], set["reviewer"], set["review_marker"]
	o.FinalVerifyCmds, o.NameSource, o.NameModel = set["final_verify_cmds"], set["run_naming_mode"], set["run_naming_model"]
	o.QueuePolicy, o.BaseBranch, o.RunBranchPrefix = set["queue_policy"], set["base_branch"], set["run_branch_prefix"]
	o.WorktreeTemplate, opts.Name = set["worktree_path_template"], set["name"]
	var err error
	if opts.MaxConcurrency, err = number(set, "max_concurrency"); err != nil {
		return nil, err
	}
	if o.MaxPerWorkspace, err = number(set, "max_runs_per_workspace"); err != nil {
		return nil, err
	}
	for _, k := range phaseKeys {
		delete(set, k)
	}
	opts.Settings = map[string]string{}
	for k, v := range set {
		if v != "" { // unset: the default applies
			opts.Settings[k] = v
		}
	}
	return opts, nil
}

// number reads a whole-number option, checked as drivesettings checks it.
func number(set map[string]string, key string) (int, error) {
	v := set[key]
	if check := drivesettings.Checks[key]; check != nil {
		if err := check(v); err != nil {
			return 0, cli.Usagef("%s %v", drivesettings.Names[key], err)
		}
	}
	return strconv.Atoi(v)
}

// emit writes one NUL-terminated KEY=VALUE record for the driver and
// flushes, since the driver waits for it.
func emit(env *cli.Env, k, v string) {
	fmt.Fprintf(env.Stdout, "%s=%s\x00", k, v)
	env.Stdout.Flush()
}

// exitRecord reports err, then tells the driver which status to exit with:
// in that order, since this process dies with the driver.
func exitRecord(env *cli.Env, err error) error {
	code := cli.Code(err)
	env.Finish(err)
	emit(env, "exit", fmt.Sprint(code))
	return cli.Silent(code)
}
