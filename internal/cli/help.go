package cli

import (
	"fmt"
	"github.com/loopkit/loopkit/internal/runconfig"
	"reflect"
	"strings"

	flags "github.com/jessevdk/go-flags"
)

// Help layout: 80 columns, option descriptions from column helpDescCol.
// go-flags' own help sizes its option column by the longest option, so one
// choice list pushed every description to column 75; ours is fixed.
const (
	helpWidth   = 80
	helpDescCol = 28
)

// commonLongs are the options every command takes (cli.Common and -h),
// listed last under their own heading.
var commonLongs = map[string]bool{"store": true, "config": true, "log-level": true, "version": true}

// WriteHelp renders the help of the parser's active command: the usage
// lines, the command's text (which starts with its examples), its
// subcommands, its options, then the options every command takes.
func WriteHelp(p *flags.Parser) string {
	chain := []*flags.Command{p.Command}
	for c := p.Command.Active; c != nil; c = c.Active {
		chain = append(chain, c)
	}
	cmd := chain[len(chain)-1]
	names := make([]string, len(chain))
	for i, c := range chain {
		names[i] = c.Name
	}
	prog := strings.Join(names, " ")

	var b strings.Builder
	usage, text := splitUsage(commandUsage(p, cmd))
	for i, u := range usage {
		u = strings.TrimSpace(u)
		if i == 0 {
			fmt.Fprintf(&b, "%s\n", strings.TrimSpace("Usage: "+prog+" "+u))
			continue
		}
		// Further usage forms are written out whole, "loop-x ..."
		fmt.Fprintf(&b, "       %s\n", u)
	}
	long := text
	if cmd == p.Command && p.LongDescription != "" {
		long = strings.TrimSpace(text + "\n\n" + p.LongDescription)
	}
	if long = strings.TrimSpace(long); long != "" {
		b.WriteString("\n" + long + "\n")
	}
	if subs := cmd.Commands(); len(subs) > 0 {
		b.WriteString("\nCommands:\n")
		for _, s := range subs {
			writeEntry(&b, "  "+s.Name, s.ShortDescription)
		}
	}
	var own, common []*flags.Option
	seen := map[string]bool{}
	for i := len(chain) - 1; i >= 0; i-- {
		collect(chain[i].Group, seen, &own, &common)
	}
	if len(own) > 0 {
		b.WriteString("\nOptions:\n")
		for _, o := range own {
			writeOption(&b, o)
		}
	}
	b.WriteString("\nCommon options:\n")
	for _, o := range common {
		writeOption(&b, o)
	}
	writeEntry(&b, "  -h, --help", "show this help")
	return b.String()
}

func collect(g *flags.Group, seen map[string]bool, own, common *[]*flags.Option) {
	for _, o := range g.Options() {
		if o.Hidden || o.LongName == "" && o.ShortName == 0 || seen[o.String()] {
			continue
		}
		seen[o.String()] = true
		if o.LongName == "help" {
			continue // written last, by WriteHelp
		}
		if commonLongs[o.LongName] {
			*common = append(*common, o)
		} else {
			*own = append(*own, o)
		}
	}
	for _, sub := range g.Groups() {
		collect(sub, seen, own, common)
	}
}

// commandUsage is the parser's Usage, or a subcommand's long description:
// both are usage lines, a blank line, then the text.
func commandUsage(p *flags.Parser, c *flags.Command) string {
	if c == p.Command {
		return p.Usage
	}
	return c.LongDescription
}

// splitUsage splits a usage string into its usage lines (up to the first
// blank line) and the text after them.
func splitUsage(s string) ([]string, string) {
	head, text, _ := strings.Cut(s, "\n\n")
	return strings.Split(strings.TrimRight(head, "\n"), "\n"), text
}

func writeOption(b *strings.Builder, o *flags.Option) {
	var name string
	switch {
	case o.ShortName != 0 && o.LongName != "":
		name = fmt.Sprintf("  -%c, --%s", o.ShortName, o.LongName)
	case o.ShortName != 0:
		name = fmt.Sprintf("  -%c", o.ShortName)
	default:
		name = "      --" + o.LongName
	}
	if k := o.Field().Type.Kind(); k != reflect.Bool && k != reflect.Func {
		v := o.ValueName
		if v == "" {
			v = "VALUE"
		}
		name += " " + v
	}
	writeEntry(b, name, optionText(o))
}

// optionText is an option's description with its choices, default and
// environment variable.
func optionText(o *flags.Option) string {
	desc := o.Description
	if len(o.Choices) > 0 {
		desc += " (one of " + strings.Join(o.Choices, ", ") + ")"
	}
	if len(o.Default) > 0 && o.Default[0] != "" {
		desc += " (default " + strings.Join(o.Default, ", ") + ")"
	}
	if o.EnvDefaultKey != "" {
		desc += " [$" + o.EnvDefaultKey + "]"
	} else if rs := runconfig.ByConfig(o.Field().Tag.Get("config")); rs != nil && rs.Env != "" {
		// a run's setting, resolved with its variable (Config.setting)
		desc += " [$" + rs.Env + "]"
	}
	return desc
}

// writeEntry writes a name and its description wrapped from helpDescCol;
// a name too long for the column gets a line of its own.
func writeEntry(b *strings.Builder, name, desc string) {
	b.WriteString(name)
	col := len(name)
	if col+2 > helpDescCol {
		b.WriteString("\n")
		col = 0
	}
	for i, line := range wrap(desc, helpWidth-helpDescCol) {
		if i > 0 {
			col = 0
			b.WriteString("\n")
		}
		b.WriteString(strings.Repeat(" ", helpDescCol-col) + line)
	}
	b.WriteString("\n")
}

// wrap breaks text into lines of at most width columns at spaces.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		switch {
		case line == "":
			line = w
		case len([]rune(line))+1+len([]rune(w)) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	return append(lines, line)
}

// SubcommandLong is a subcommand's long description for WriteHelp: use
// (its usage line, a blank line, its examples), then short as a sentence
// wrapped to the help's 80 columns.
func SubcommandLong(use, short string) string {
	if short == "" {
		return use
	}
	text := strings.ToUpper(short[:1]) + short[1:] + "."
	return use + "\n\n" + strings.Join(wrap(text, 78), "\n")
}
