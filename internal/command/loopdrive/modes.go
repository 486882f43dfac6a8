package loopdrive

import (
	"fmt"

	flags "github.com/jessevdk/go-flags"

	"github.com/loopkit/loopkit/internal/cli"
)

// loop-drive's subcommands: new, resume, resume-all, init and trust read
// the rest of the line themselves (run); the others set one mode of
// Options.
var subcommands = []struct{ name, short, use string }{
	{"new", "hold a new run (loop run)", ""},
	{"resume", "hold a run again (loop resume)", ""},
	{"resume-all", "resume interrupted runs (loop resume --interrupted)", ""},
	{"next", "print the next action",
		"--run ID\n\nExamples:\n  $ loop-drive next --run RUN"},
	{"record", "record iteration --iteration from stdin, print its summary and the next action",
		"--run ID --iteration N < STEP_AND_VALIDATION\n\nExamples:\n  $ cat step.json validation.json | loop-drive record --run RUN --iteration 3"},
	{"attempt", "keep the step on stdin, which could not work, as an attempt; print the next action",
		"--run ID < STEP\n\nExamples:\n  $ loop-drive attempt --run RUN < step.json"},
	{"cancel", "stop the run's driver and mark the run canceled",
		"--run ID\n\nExamples:\n  $ loop-drive cancel --run RUN"},
	{"pause", "let the current step finish, then stop the driver; the run is paused",
		"--run ID\n\nExamples:\n  $ loop-drive pause --run RUN"},
	{"merge", "merge the completed run's branch into its merge target",
		"--run ID\n\nExamples:\n  $ loop-drive merge --run RUN"},
	{"wait", "wait out a rate limit: S seconds, or until the run is paused or canceled",
		"--run ID --seconds S\n\nExamples:\n  $ loop-drive wait --run RUN --seconds 60"},
	{"init", "set up a project (loop init)", ""},
	{"trust", "accept a config file's commands (loop trust)", ""},
	{"usage", "print the help of the driver, loop",
		"\n\nExamples:\n  $ loop-drive usage | less"},
}

// addSubcommands registers the subcommands, for --help, the man page and
// completion; the help of those that read their own line is their own.
func addSubcommands(p *flags.Parser) {
	p.SubcommandsOptional = true // the old mode flags, for one release
	for _, c := range subcommands {
		long := ""
		if c.use != "" {
			long = cli.SubcommandLong(c.use, c.short)
		}
		if _, err := p.AddCommand(c.name, c.short, long, &struct{}{}); err != nil {
			panic(err)
		}
	}
}

// helpHides are the options a subcommand's --help leaves out, those it
// refuses or never reads: --iteration is record's alone, and usage only
// prints the driver's help.
func helpHides(name string) []string {
	switch name {
	case "record":
		return nil
	case "usage":
		return []string{"run", "iteration", "seconds", "inline-cap", "max-patch-bytes"}
	case "wait":
		return []string{"iteration"}
	}
	return []string{"iteration", "seconds"}
}

// pickMode sets the one mode the subcommand, or else one old mode flag,
// asks for: two are exit 2 naming both, none is exit 2 listing them.
func pickMode(env *cli.Env, p *flags.Parser, opts *Options) error {
	flagsOn := map[string]*bool{"next": &opts.Next, "record": &opts.Record, "attempt": &opts.Attempt,
		"cancel": &opts.Cancel, "pause": &opts.Pause, "merge": &opts.Merge, "usage": &opts.Usage, "wait": &opts.Wait}
	var given []string
	for _, c := range subcommands {
		if on := flagsOn[c.name]; on != nil && *on {
			given = append(given, c.name)
		}
	}
	if p.Active != nil {
		if len(given) > 0 {
			return env.UsageError("the %s subcommand and --%s cannot be used together", p.Active.Name, given[0])
		}
		*flagsOn[p.Active.Name] = true
		return nil
	}
	switch len(given) {
	case 0:
		return env.UsageError("no subcommand: give one of new, resume, resume-all, next, record, attempt, cancel, pause, merge, init, trust, usage")
	case 1:
		deprecated(env, given[0])
		return nil
	}
	return env.UsageError("--%s and --%s cannot be used together", given[0], given[1])
}

// deprecated says on stderr that an old mode flag goes.
func deprecated(env *cli.Env, mode string) {
	fmt.Fprintf(env.Stderr, "%s: --%s is deprecated and goes in the next release: use '%s %s'\n", env.Name, mode, env.Name, mode)
}
