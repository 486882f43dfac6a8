package looprecord

import (
	"fmt"
	"slices"

	flags "github.com/jessevdk/go-flags"

	"github.com/loopkit/loopkit/internal/cli"
)

// Each of these flags picks what loop-record did before its subcommands
// (kept for one release, with a deprecation line); "record" (an iteration
// on stdin) and "update" (--setting, --pid, --pgid alone) are the others.
var modeFlags = []string{"new-run", "status", "attempt", "repair", "verify", "hypotheses", "snapshot", "rate-limit"}

// subcommand is one of loop-record's modes: the old flag it stands for
// and the value that flag took, now an argument; use is its --help's
// usage line and examples.
type subcommand struct {
	name, flag, arg, short, use string
}

var subcommands = []subcommand{
	{"new", "new-run", "", "create a run (id from --run, else a new time-sortable id) and print its id",
		"[--run ID] [--name NAME] [--setting KEY=VALUE ...]\n\nExamples:\n  $ loop-record new --run ci\n  $ loop-record new --name 'fix the parser'"},
	{"status", "status", "STATUS", "set the run's status: running, completed, failed, stuck, canceled",
		"STATUS --run ID [--message TEXT] [--rule NAME]\n\nExamples:\n  $ loop-record status completed --run ci\n  $ loop-record status canceled --run ci --message 'stopped by hand'"},
	{"attempt", "attempt", "", "record the step on stdin as an attempt, not an iteration",
		"--run ID [--kind KIND] < STEP\n\nExamples:\n  $ loop-record attempt --run ci --kind interrupted < step.json"},
	{"rate-limit", "rate-limit", "STEP_FILE", "if the step in STEP_FILE hit a rate limit, record it and print the wait in ms",
		"STEP_FILE --run ID\n\nExamples:\n  $ loop-record rate-limit step.json --run ci"},
	{"verify", "verify", "", "record the validation on stdin as a final verification",
		"--run ID < VALIDATION\n\nExamples:\n  $ loop-validate -- make e2e | loop-record verify --run ci"},
	{"hypotheses", "hypotheses", "", "put the final message of the step on stdin into stuck.md",
		"--run ID < STEP\n\nExamples:\n  $ loop-record hypotheses --run ci < step.json"},
	{"snapshot", "snapshot", "MILESTONE", "write a context snapshot for MILESTONE and print its path",
		"MILESTONE --run ID\n\nExamples:\n  $ loop-record snapshot start --run ci"},
	{"repair", "repair", "", "only mend what a killed writer left in the run",
		"--run ID\n\nExamples:\n  $ loop-record repair --run ci"},
	{"set", "update", "", "store --setting, --pid or --pgid in run.json",
		"--run ID [--setting KEY=VALUE ...] [--pid PID] [--pgid N]\n\nExamples:\n  $ loop-record set --run ci --pid 4242 --pgid 4242"},
}

// addSubcommands registers the subcommands with the parser, for --help,
// the man page and completion; their options are loop-record's own.
func addSubcommands(p *flags.Parser) {
	p.SubcommandsOptional = true
	for _, c := range subcommands {
		if _, err := p.AddCommand(c.name, c.short, cli.SubcommandLong(c.use, c.short), &struct{}{}); err != nil {
			panic(err)
		}
	}
}

// fromSubcommand sets the mode the subcommand given (if any) stands for
// and takes its argument; an old mode flag beside it is exit 2 naming both.
// With no subcommand, an old mode flag still works and says it is going.
func fromSubcommand(env *cli.Env, p *flags.Parser, opts *Options, args []string) (string, []string, error) {
	given := func(name string) bool {
		o := p.FindOptionByLongName(name)
		return o != nil && o.IsSet() && !o.IsSetDefault()
	}
	if p.Active == nil {
		return "", args, nil
	}
	var sub subcommand
	for _, c := range subcommands {
		if c.name == p.Active.Name {
			sub = c
		}
	}
	for _, m := range modeFlags {
		if given(m) {
			return "", nil, env.UsageError("the %s subcommand and --%s (the old form of '%s') cannot be used together", sub.name, m, subFor(m).name)
		}
	}
	if sub.arg != "" {
		if len(args) == 0 {
			return "", nil, env.UsageError("%s needs %s (loop-record %s %s --run ID)", sub.name, sub.arg, sub.name, sub.arg)
		}
		switch sub.name {
		case "status":
			opts.Status = args[0]
		case "snapshot":
			opts.Snapshot = args[0]
		case "rate-limit":
			opts.RateLimit = args[0]
		}
		args = args[1:]
	}
	switch sub.name {
	case "new":
		opts.NewRun = true
	case "attempt":
		opts.Attempt = true
	case "verify":
		opts.Verify = true
	case "hypotheses":
		opts.Hypotheses = true
	case "repair":
		opts.Repair = true
	}
	return sub.flag, args, nil
}

// said is a mode as the person gave it: its subcommand, or else its old
// flag (--status), so that an error names what was typed.
func said(p *flags.Parser, flag string) string {
	if p.Active != nil {
		return p.Active.Name
	}
	return "--" + flag
}

// deprecated says on stderr, once, that an old mode flag goes.
func deprecated(env *cli.Env, p *flags.Parser, mode string) {
	if p.Active != nil || !slices.Contains(modeFlags, mode) {
		return
	}
	sub := subFor(mode)
	if sub.arg != "" {
		sub.name += " " + sub.arg
	}
	fmt.Fprintf(env.Stderr, "%s: --%s is deprecated and goes in the next release: use '%s %s'\n", env.Name, mode, env.Name, sub.name)
}

func subFor(flag string) subcommand {
	for _, c := range subcommands {
		if c.flag == flag {
			return c
		}
	}
	return subcommand{name: flag}
}

// companions are the modes each other flag means something in. A flag
// given where it means nothing is a usage error, never silently ignored.
var companions = map[string][]string{
	"name":        {"new-run"},
	"name-source": {"new-run"},
	"spec":        {"new-run"},
	"plan":        {"new-run"},
	"setting":     {"new-run", "update"},
	"pid":         {"update"},
	"pgid":        {"update"},
	"message":     {"status", "finish"},
	"no-clean":    {"status", "finish"},
	"rule":        {"status"},
	"iteration":   {"record"},
	"exit-status": {"record"},
	"finish":      {"record"},
	"summary":     {"record"},
	"kind":        {"attempt"},
}

// companionOrder is the order checkFlags looks at companions' flags in
// (the first one out of place is named).
var companionOrder = []string{"name", "name-source", "spec", "plan", "setting", "pid", "pgid", "iteration", "exit-status", "finish", "summary", "message", "no-clean", "kind", "rule"}

// helpHides are the flags a subcommand's --help leaves out: those that
// mean nothing in its mode (checkFlags refuses them there), so that the
// help a usage error points at never lists the flag it refused.
func helpHides(name string) []string {
	var hide []string
	for _, f := range companionOrder {
		if !slices.Contains(companions[f], subNamed(name).flag) {
			hide = append(hide, f)
		}
	}
	return hide
}

// subNamed is the subcommand called name.
func subNamed(name string) subcommand {
	for _, c := range subcommands {
		if c.name == name {
			return c
		}
	}
	return subcommand{name: name}
}

// hints say what the user likely meant, by "flag mode" pair.
var hints = map[string]string{
	"new-run status":     "create the run first (loop-record new --run ID), then set its status (loop-record status STATUS --run ID)",
	"iteration status":   "did you mean --finish? it records the iteration on stdin, then ends the run by its exit code",
	"exit-status status": "did you mean --finish? it records the iteration on stdin, then ends the run by its exit code",
	"message record":     "did you mean --finish --message TEXT, or loop-record status STATUS --message TEXT?",
	"no-clean record":    "did you mean --finish --no-clean?",
	"name record":        "did you mean loop-record new --name NAME?",
	"name status":        "the name is given when the run is created: loop-record new --name NAME",
	"kind record":        "did you mean loop-record attempt --kind KIND?",
}

// checkFlags refuses flag combinations where a flag would be ignored or two
// flags ask for different things (exit 2, naming both flags).
func checkFlags(env *cli.Env, p *flags.Parser, mode string) (string, error) {
	given := func(name string) bool {
		o := p.FindOptionByLongName(name)
		return o != nil && o.IsSet() && !o.IsSetDefault()
	}
	for _, m := range modeFlags {
		if p.Active != nil || !given(m) {
			continue // a subcommand is the mode: fromSubcommand refused mode flags beside it
		}
		if mode != "" {
			return "", conflict(env, m, mode, fmt.Sprintf("--%s and --%s cannot be used together", mode, m))
		}
		mode = m
	}
	if mode == "" {
		mode = "record"
		if given("setting") || given("pid") || given("pgid") {
			mode = "update"
		}
	}
	if mode == "update" && !given("setting") && !given("pid") && !given("pgid") {
		return "", env.UsageError("set needs --setting KEY=VALUE, --pid or --pgid")
	}
	effective := mode
	for _, f := range companionOrder {
		if !given(f) {
			continue
		}
		if mode == "record" && given("finish") && slices.Contains(companions[f], "finish") {
			continue
		}
		if slices.Contains(companions[f], effective) {
			continue
		}
		with := "--" + mode
		if p.Active != nil {
			with = "loop-record " + p.Active.Name
		}
		if mode == "record" {
			with = "an iteration on stdin"
		}
		if mode == "update" && p.Active == nil {
			with = "--setting, --pid or --pgid alone"
		}
		return "", conflict(env, f, mode, fmt.Sprintf("--%s has no effect with %s", f, with))
	}
	if mode == "snapshot" && p.FindOptionByLongName("snapshot").Value() == "" && p.Active == nil {
		return "", env.UsageError("--snapshot needs a milestone name (e.g. --snapshot start)")
	}
	return mode, nil
}

func conflict(env *cli.Env, flag, mode, msg string) error {
	err := env.UsageError("%s", msg)
	for _, k := range []string{flag + " " + mode, mode + " " + flag} {
		if h, ok := hints[k]; ok {
			err.(*cli.ExitError).Hint = h
		}
	}
	return err
}
