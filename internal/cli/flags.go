package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	flags "github.com/jessevdk/go-flags"

	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/lazyre"
)

// Common are the options every command takes.
type Common struct {
	Store    string `long:"store" env:"LOOP_STORE" value-name:"DIR" description:"the store (default: .loop at the git top level or here)" unquote:"false"`
	Config   string `long:"config" env:"LOOP_CONFIG" value-name:"FILE" description:"key=value settings, after the store's config" unquote:"false"`
	LogLevel string `long:"log-level" env:"LOOP_LOG_LEVEL" value-name:"LEVEL" description:"debug, info, warn or error" unquote:"false"`
	Version  bool   `long:"version" description:"print the version and exit"`
	Man      bool   `long:"man" hidden:"yes" description:"print the man page (roff) and exit"`
}

// badValue is go-flags' message for a value its type refused; we keep the
// flag's name and the type's own reason.
var badValue = lazyre.New("^invalid argument for flag `([^']*)' \\(expected [^)]*\\): (.*)$")

// unknownCommand is go-flags' "Unknown command `x'. Please specify one
// command of: a, b or c".
var unknownCommand = lazyre.New("^Unknown command `([^']*)'\\. Please specify one command of: (.*)$")

var badNumber = lazyre.New(`strconv\.Parse\w+: parsing ("[^"]*"): (invalid syntax|value out of range)`)

// go-flags' other messages about a flag, which quote `like this', write a
// long flag without its dashes and start sentences in capitals.
var (
	unknownFlag  = lazyre.New("^unknown flag `([^']*)'$")
	noArgument   = lazyre.New("^expected argument for flag `(?:-[^,']*, )?([^']*)'")
	gotOption    = lazyre.New(", but got option `(.*)'$")
	boolArgument = lazyre.New("^bool flag `(?:-[^,']*, )?([^']*)' cannot have an argument")
	invalidValue = lazyre.New("^Invalid value `(.*)' for option `(?:-[^,']*, )?([^']*)'\\. Allowed values are: (.*)$")
	required     = lazyre.New("`(?:-[^,']*, )?([^']*)'")
)

// flagMessage says go-flags' error about a flag in the words the driver
// uses for the same mistakes (loop: unknown flag --X, --X needs a value),
// naming the flag as it is typed; "" leaves the message as it is.
func flagMessage(fe *flags.Error, args []string) string {
	switch fe.Type {
	case flags.ErrUnknownFlag:
		if m := unknownFlag.FindStringSubmatch(fe.Message); m != nil {
			return "unknown flag " + typedFlag(m[1], args)
		}
	case flags.ErrExpectedArgument:
		if m := noArgument.FindStringSubmatch(fe.Message); m != nil {
			// a value starting with '-' (--jq '-.x', --where '-1 < .x')
			// was given but reads as a flag: say so and how to pass it
			if g := gotOption.FindStringSubmatch(fe.Message); g != nil {
				sep := "="
				if !strings.HasPrefix(m[1], "--") {
					sep = ""
				}
				return fmt.Sprintf("%s needs a value: %s reads as a flag; write %s%s%s if it is the value", m[1], g[1], m[1], sep, g[1])
			}
			return m[1] + " needs a value"
		}
	case flags.ErrNoArgumentForBool:
		if m := boolArgument.FindStringSubmatch(fe.Message); m != nil {
			return m[1] + " takes no value"
		}
	case flags.ErrInvalidChoice:
		if m := invalidValue.FindStringSubmatch(fe.Message); m != nil {
			return fmt.Sprintf("%s must be %s, got %q", m[2], m[3], m[1])
		}
	case flags.ErrRequired:
		var names []string
		for _, m := range required.FindAllStringSubmatch(fe.Message, -1) {
			names = append(names, m[1])
		}
		switch len(names) {
		case 0:
		case 1:
			return names[0] + " is required"
		default:
			return strings.Join(names, ", ") + " are required"
		}
	}
	return ""
}

// typedFlag is the unknown flag name go-flags reports (no dashes) as it was
// typed: --name when the command line holds it so, else -n (one letter of
// a short group, or a negative number such as -1).
func typedFlag(name string, args []string) string {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--"+name || strings.HasPrefix(a, "--"+name+"=") {
			return "--" + name
		}
	}
	if utf8.RuneCountInString(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// ErrHelpShown means help or the version was printed; exit 0.
var ErrHelpShown = errors.New("help shown")

// NewParser builds a go-flags parser without the library's printing defaults:
// errors come back to us, help goes to stdout.
func NewParser(env *Env, data any, usage string) *flags.Parser {
	p := flags.NewNamedParser(env.Name, flags.HelpFlag|flags.PassDoubleDash)
	p.Usage = usage
	if _, err := p.AddGroup("Options", "", data); err != nil {
		panic(err) // a malformed option struct is a programming error
	}
	return p
}

// Parse parses args into the parser's data. Help and --version print to
// stdout and return ErrHelpShown; a bad flag is a usage error (exit 2).
func Parse(env *Env, p *flags.Parser, common *Common, args []string) ([]string, error) {
	// Shell completion (GO_FLAGS_COMPLETION set by the completion scripts):
	// go-flags lists the candidates for the last word; we print them.
	completing := false
	if os.Getenv("GO_FLAGS_COMPLETION") != "" {
		// a subcommand completes only the options its help lists: the
		// others are refused after it (loop-record status --iteration)
		for _, a := range args {
			if c := p.Find(a); c != nil && !strings.HasPrefix(a, "-") {
				hideFor(env, p, c.Name)
				break
			}
		}
	}
	p.CompletionHandler = func(items []flags.Completion) {
		completing = true
		for _, it := range items {
			fmt.Fprintln(env.Stdout, it.Item)
		}
	}
	rest, err := p.ParseArgs(args)
	if p.Active != nil { // its usage errors point at its own help
		env.helpName = env.Name + " " + p.Active.Name
	}
	if completing {
		return nil, ErrHelpShown
	}
	var fe *flags.Error
	if errors.As(err, &fe) && fe.Type == flags.ErrCommandRequired && common != nil && (common.Version || common.Man) {
		err = nil // `loop-view --version` needs no subcommand
	}
	if err != nil {
		if errors.As(err, &fe) && fe.Type == flags.ErrHelp {
			if p.Active != nil {
				hideFor(env, p, p.Active.Name)
			}
			fmt.Fprint(env.Stdout, WriteHelp(p))
			return nil, ErrHelpShown
		}
		if fe != nil && fe.Type == flags.ErrUnknownCommand {
			// go-flags' own two sentences, in the words of the other usage errors
			if m := unknownCommand.FindStringSubmatch(fe.Message); m != nil {
				err = fmt.Errorf("unknown subcommand %q: give one of %s", m[1], strings.ReplaceAll(m[2], " or ", ", "))
			}
		}
		if fe != nil && fe.Type == flags.ErrMarshal {
			msg := badValue.ReplaceAllString(fe.Message, "$1: $2")
			err = errors.New(badNumber.ReplaceAllString(msg, "$1 is not a whole number"))
		}
		if fe != nil {
			if msg := flagMessage(fe, args); msg != "" {
				err = errors.New(msg)
			}
		}
		return nil, &ExitError{Code: exitcode.Usage, Err: err, Hint: env.helpHint()}
	}
	if common != nil {
		if common.Man {
			fmt.Fprint(env.Stdout, WriteMan(p))
			return nil, ErrHelpShown
		}
		if common.Version {
			fmt.Fprintf(env.Stdout, "%s %s\n", env.Name, VersionLine())
			return nil, ErrHelpShown
		}
		if common.LogLevel != "" {
			if err := env.SetLogLevel(common.LogLevel); err != nil {
				return nil, env.UsageError("--log-level (or LOOP_LOG_LEVEL): %v", err)
			}
		}
	}
	if err := checkRanges(p); err != nil {
		return nil, &ExitError{Code: exitcode.Usage, Err: err, Hint: env.helpHint()}
	}
	return rest, nil
}

// UsageError makes a usage error that points at --help.
func (e *Env) UsageError(format string, a ...any) error {
	return &ExitError{Code: exitcode.Usage, Err: fmt.Errorf(format, a...), Hint: e.helpHint()}
}

// helpHint points at the help of the subcommand given, else the command's.
func (e *Env) helpHint() string {
	name := e.Name
	if e.helpName != "" {
		name = e.helpName
	}
	return fmt.Sprintf("see '%s --help'", name)
}

// Done maps ErrHelpShown to success for a command's run function.
func Done(err error) error {
	if errors.Is(err, ErrHelpShown) {
		return nil
	}
	return err
}

// hideFor hides the options env.HelpHides names for the subcommand, from
// its help and its completion alike.
func hideFor(env *Env, p *flags.Parser, subcommand string) {
	if env.HelpHides == nil {
		return
	}
	for _, name := range env.HelpHides(subcommand) {
		if o := p.FindOptionByLongName(name); o != nil {
			o.Hidden = true
		}
	}
}
