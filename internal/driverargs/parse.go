// Package driverargs reads the command lines of `scripts/loop run` and
// `scripts/loop resume`: flags, SPEC [PLAN] and the agent's argv. What each
// flag sets, its type, default and check are runconfig's (one struct, its
// tags); this package only splits the line and writes the help from them.
package driverargs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopkit/loopkit/internal/runconfig"
)

// UsageError is a command line the driver cannot read: the help follows
// its message.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, a ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, a...)}
}

// Sources are where a setting is looked for after the flags: the
// environment, then the config files (the store's, then LOOP_CONFIG's,
// already merged).
type Sources struct {
	Getenv func(string) string
	Config map[string]runconfig.ConfigValue
}

// Run is a `scripts/loop run` command line read against its sources.
type Run struct {
	// Help is set when -h or --help was given: nothing else is filled.
	Help bool
	// Settings are every setting resolved and checked (Agent included).
	Settings   runconfig.Settings
	Spec, Plan string
}

// ParseRun reads `scripts/loop run ARGS`: flags (--flag VALUE or
// --flag=VALUE), SPEC and PLAN, then `--` and the agent's argv. A bad
// value is a *runconfig.SettingError naming the setting; the prompt and
// the workspace come back as absolute paths.
func ParseRun(args []string, src Sources) (*Run, error) {
	given := map[string][]string{}
	r := &Run{}
	var pos, agent []string
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			agent = args[i+1:]
			break
		}
		if a == "-h" || a == "--help" {
			return &Run{Help: true}, nil
		}
		if !strings.HasPrefix(a, "-") {
			pos = append(pos, a)
			continue
		}
		name, val, inline := strings.Cut(a, "=")
		f := runconfig.ByFlag(strings.TrimPrefix(name, "--"))
		if f == nil || !strings.HasPrefix(name, "--") {
			return nil, usagef("unknown flag %s", name)
		}
		switch {
		case f.Arg == "" && inline:
			return nil, usagef("%s takes no value", name)
		case f.Arg == "":
			val = "1"
		case !inline && i+1 < len(args):
			i++
			val = args[i]
		}
		if val == "" {
			return nil, usagef("%s needs a value", name)
		}
		given[f.Key] = append(given[f.Key], val)
	}
	switch {
	case len(pos) > 2:
		return nil, usagef("unexpected argument: %s", pos[2])
	case len(pos) > 1:
		r.Spec, r.Plan = pos[0], pos[1]
	case len(pos) == 1:
		r.Spec = pos[0]
	}
	if len(agent) == 0 {
		return nil, usagef("no agent command: give it after --")
	}
	set, err := runconfig.Resolve(runconfig.Sources{Flags: given, Getenv: src.Getenv, Config: src.Config})
	if err != nil {
		return nil, err
	}
	set.Agent = agent
	r.Settings = set
	return r, r.complete()
}

// complete checks what must be there, in the order a person fixes them,
// and makes the prompt and dir absolute.
func (r *Run) complete() error {
	s := &r.Settings
	if p := s.Prompt; p != "" {
		if msg := runconfig.PathProblem(p, false); msg != "" {
			return usagef("--prompt %s: %s", p, msg)
		}
		s.Prompt, _ = filepath.Abs(p)
	} else if r.Spec == "" {
		return usagef("--prompt is required (or a SPEC argument)")
	}
	if s.Validate == "" {
		return usagef("--validate is required (or config verify_cmds)")
	}
	if fi, err := os.Stat(s.Dir); err != nil || !fi.IsDir() {
		return usagef("--dir %s: no such directory", s.Dir)
	}
	s.Dir, _ = filepath.Abs(s.Dir)
	// kept as its real path, as the store's root is: a shell that cd'd
	// through a link names the link, which a resume refuses as a swap
	if real, err := filepath.EvalSymlinks(s.Dir); err == nil {
		s.Dir = real
	}
	for _, p := range []struct{ what, path, fix string }{
		{"--dir", s.Dir, "rename the folder"}, {"--prompt", s.Prompt, "rename the file"},
		{"SPEC", r.Spec, "rename the file"}, {"PLAN", r.Plan, "rename the file"},
	} {
		if p.path == "" {
			continue
		}
		abs, _ := filepath.Abs(p.path)
		if msg := runconfig.Unkept(abs); msg != "" {
			return usagef("%s %q: %s: %s", p.what, abs, msg, p.fix)
		}
	}
	return nil
}

// Resume is a `scripts/loop resume` command line.
type Resume struct {
	Help          bool
	Run           string
	MaxIterations int // the run's new total; 0 keeps it
	// MaxDuration is the run's new --max-duration, when HasMaxDuration.
	MaxDuration    runconfig.Duration
	HasMaxDuration bool
	// Caps are the run's new --max-cost and --max-tokens given, as text
	// by setting key (checked): a run failed at its cap goes on only with
	// a larger one.
	Caps map[string]string
	// Settings are every setting from the environment, config or default
	// (the queue's settings apply to a resumed run too).
	Settings runconfig.Settings
}

// ResumeUsage is the error for a resume line without exactly one run.
func ResumeUsage() string {
	return "usage: " + Prog() + " resume RUN [--max-iterations N] [--max-duration D] [--max-cost USD] [--max-tokens N]"
}

// ParseResume reads `loop resume RUN [--max-iterations N] [--max-duration D]
// [--max-cost USD] [--max-tokens N]`; each value is read by the setting's
// own parser.
func ParseResume(args []string, src Sources) (*Resume, error) {
	set, err := runconfig.Resolve(runconfig.Sources{Getenv: src.Getenv, Config: src.Config})
	if err != nil {
		return nil, err
	}
	r := &Resume{Settings: set}
	var given runconfig.Settings
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, inline := strings.Cut(a, "=")
		switch {
		case a == "-h" || a == "--help":
			return &Resume{Help: true}, nil
		case name == "--max-iterations" || name == "--max-duration" || name == "--max-cost" || name == "--max-tokens":
			if !inline && i+1 < len(args) {
				i++
				val = args[i]
			}
			if val == "" {
				return nil, usagef("%s needs a value", name)
			}
			key := strings.ReplaceAll(strings.TrimPrefix(name, "--"), "-", "_")
			if err := given.Set(key, val); err != nil {
				return nil, err
			}
			switch key {
			case "max_duration":
				r.MaxDuration, r.HasMaxDuration = given.MaxDuration, true
			case "max_iterations":
				r.MaxIterations = given.MaxIterations
			default:
				if r.Caps == nil {
					r.Caps = map[string]string{}
				}
				r.Caps[key] = val
			}
		case strings.HasPrefix(a, "-"):
			return nil, usagef("unknown flag %s", name)
		case r.Run != "":
			return nil, usagef("%s", ResumeUsage())
		default:
			r.Run = a
		}
	}
	if r.Run == "" {
		return nil, usagef("%s", ResumeUsage())
	}
	return r, nil
}
