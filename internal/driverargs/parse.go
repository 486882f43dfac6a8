package driverargs

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
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
	Config map[string]string
}

func (s Sources) pick(o *Option) string {
	if o.Env != "" && s.Getenv != nil {
		if v := s.Getenv(o.Env); v != "" {
			return v
		}
	}
	if o.Config != "" {
		if v := s.Config[o.Config]; v != "" {
			return v
		}
	}
	return o.Default
}

// Run is a `scripts/loop run` command line read against its sources.
type Run struct {
	// Help is set when -h or --help was given: nothing else is filled.
	Help bool
	// Set holds every option's value by key ("" when none was given and
	// there is no default); a repeatable flag's values joined by newlines.
	Set map[string]string
	// Lists holds a repeatable flag's values one by one (flags, else the
	// config's one value).
	Lists      map[string][]string
	Spec, Plan string
	Agent      []string
}

func byFlag(name string) *Option {
	for i := range Options {
		if Options[i].Flag != "" && Options[i].Flag == name {
			return &Options[i]
		}
	}
	return nil
}

// ParseRun reads `scripts/loop run ARGS`: flags (--flag VALUE or
// --flag=VALUE), SPEC and PLAN, then `--` and the agent's argv. The prompt
// and the workspace come back as absolute paths; the values are checked
// later, by drivesettings.
func ParseRun(args []string, src Sources) (*Run, error) {
	given := map[string][]string{}
	r := &Run{Set: map[string]string{}, Lists: map[string][]string{}}
	var pos []string
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			r.Agent = args[i+1:]
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
		o := byFlag(strings.TrimPrefix(name, "--"))
		if o == nil || !strings.HasPrefix(name, "--") {
			return nil, usagef("unknown flag %s", name)
		}
		switch {
		case o.Arg == "" && inline:
			return nil, usagef("%s takes no value", name)
		case o.Arg == "":
			val = "1"
		case !inline && i+1 < len(args):
			i++
			val = args[i]
		}
		if val == "" {
			return nil, usagef("%s needs a value", name)
		}
		given[o.Key] = append(given[o.Key], val)
	}
	switch {
	case len(pos) > 2:
		return nil, usagef("unexpected argument: %s", pos[2])
	case len(pos) > 1:
		r.Spec, r.Plan = pos[0], pos[1]
	case len(pos) == 1:
		r.Spec = pos[0]
	}
	for i := range Options {
		o := &Options[i]
		v := given[o.Key]
		switch {
		case len(v) > 0 && o.Many:
			r.Lists[o.Key] = v
		case len(v) > 0:
			v = v[len(v)-1:] // the last one wins, as in the shell
		default:
			if p := src.pick(o); p != "" {
				v = []string{p}
				if o.Many {
					r.Lists[o.Key] = v
				}
			}
		}
		r.Set[o.Key] = strings.Join(v, "\n")
	}
	return r, r.complete()
}

// complete checks what must be there before any value is checked, in the
// order a person fixes them, and makes the prompt and dir absolute.
func (r *Run) complete() error {
	if len(r.Agent) == 0 {
		return usagef("no agent command: give it after --")
	}
	if p := r.Set["prompt"]; p != "" {
		if fi, err := os.Stat(p); err != nil || fi.IsDir() {
			return usagef("--prompt %s: no such file", p)
		}
		r.Set["prompt"], _ = filepath.Abs(p)
	} else if r.Spec == "" {
		return usagef("--prompt is required (or a SPEC argument)")
	}
	if r.Set["validate"] == "" {
		return usagef("--validate is required (or config verify_cmds)")
	}
	d := r.Set["dir"]
	if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
		return usagef("--dir %s: no such directory", d)
	}
	r.Set["dir"], _ = filepath.Abs(d)
	return nil
}

// Resume is a `scripts/loop resume` command line.
type Resume struct {
	Help          bool
	Run           string
	MaxIterations int    // the run's new total; 0 keeps it
	MaxDuration   string // the run's new --max-duration; "" keeps it
	// Set holds every option's value from the environment, config or
	// default (the queue's settings apply to a resumed run too).
	Set map[string]string
}

// ResumeUsage is the error for a resume line without exactly one run.
func ResumeUsage() string {
	return "usage: " + Prog() + " resume RUN [--max-iterations N] [--max-duration D]"
}

// ParseResume reads `loop resume RUN [--max-iterations N] [--max-duration D]`.
func ParseResume(args []string, src Sources) (*Resume, error) {
	r := &Resume{Set: map[string]string{}}
	for i := range Options {
		r.Set[Options[i].Key] = src.pick(&Options[i])
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, inline := strings.Cut(a, "=")
		switch {
		case a == "-h" || a == "--help":
			return &Resume{Help: true}, nil
		case name == "--max-iterations":
			if !inline && i+1 < len(args) {
				i++
				val = args[i]
			}
			n, err := strconv.Atoi(val)
			if val == "" {
				return nil, usagef("--max-iterations needs a value")
			} else if err != nil || n <= 0 {
				return nil, usagef("--max-iterations must be a positive whole number, got %q", val)
			}
			r.MaxIterations = n
		case name == "--max-duration":
			if !inline && i+1 < len(args) {
				i++
				val = args[i]
			}
			if !isDuration(val) {
				return nil, usagef("--max-duration needs a duration such as 8h or 90m, got %q", val)
			}
			r.MaxDuration = val
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

// isDuration: Go syntax ("8h", "90m") or bare seconds, more than 0 (the
// full check is cli.ParseDuration's, which imports this package).
func isDuration(v string) bool {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return f > 0
	}
	d, err := time.ParseDuration(v)
	return err == nil && d > 0
}
