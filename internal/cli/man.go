package cli

import (
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	flags "github.com/jessevdk/go-flags"
)

// WriteMan renders the parser's man page (roff, section 1) from the same
// text as --help: usage lines, examples and text, subcommands with their
// own usage and options, then the options. `make install` writes one per
// command with the hidden --man flag.
func WriteMan(p *flags.Parser) string {
	var b strings.Builder
	name := p.Name
	usage, text := splitUsage(p.Usage)
	short, _, _ := strings.Cut(strings.TrimSpace(firstParagraph(text)), "\n")
	fmt.Fprintf(&b, ".TH %s 1 \"\" \"loopkit %s\" \"loopkit\"\n", strings.ToUpper(name), roff(VersionString()))
	fmt.Fprintf(&b, ".SH NAME\n%s \\- %s\n", name, roff(oneLine(p.Command, short)))
	b.WriteString(".SH SYNOPSIS\n.nf\n")
	for i, u := range usage {
		u = strings.TrimSpace(u)
		if i == 0 {
			u = name + " " + u
		}
		b.WriteString(roff(u) + "\n")
	}
	b.WriteString(".fi\n.SH DESCRIPTION\n")
	writeManText(&b, text)
	if subs := p.Commands(); len(subs) > 0 {
		b.WriteString(".SH COMMANDS\n")
		for _, c := range subs {
			u, t := splitUsage(c.LongDescription)
			fmt.Fprintf(&b, ".SS \"%s %s\"\n", c.Name, roff(strings.Join(u, " ")))
			writeManText(&b, t)
			seen := map[string]bool{}
			var own, common []*flags.Option
			collect(c.Group, seen, &own, &common)
			writeManOptions(&b, own)
		}
	}
	var own, common []*flags.Option
	collect(p.Command.Group, map[string]bool{}, &own, &common)
	if len(own) > 0 {
		b.WriteString(".SH OPTIONS\n")
		writeManOptions(&b, own)
	}
	b.WriteString(".SH COMMON OPTIONS\n")
	writeManOptions(&b, common)
	b.WriteString(".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nshow the help\n")
	b.WriteString(".SH SEE ALSO\nloop-validate(1), loop-record(1), loop-step(1), loop-progress(1), loop-view(1), loop-clean(1), loop(1)\n")
	return b.String()
}

// oneLine is the command's one-line summary: its short description, else
// the first sentence of its text.
func oneLine(c *flags.Command, fallback string) string {
	if c.ShortDescription != "" {
		return c.ShortDescription
	}
	if i := strings.Index(fallback, ". "); i > 0 {
		fallback = fallback[:i]
	}
	fallback = strings.TrimSuffix(fallback, ".")
	if fallback != "" {
		fallback = strings.ToLower(fallback[:1]) + fallback[1:]
	}
	return fallback
}

// firstParagraph is the first paragraph of text that is not the examples.
func firstParagraph(text string) string {
	for _, para := range strings.Split(text, "\n\n") {
		if !strings.HasPrefix(strings.TrimSpace(para), "Examples:") {
			return strings.Join(strings.Fields(para), " ")
		}
	}
	return ""
}

// writeManText writes paragraphs; indented lines (examples) stay as typed.
func writeManText(b *strings.Builder, text string) {
	for _, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		lines := strings.Split(para, "\n")
		literal := false
		for _, l := range lines[1:] {
			literal = literal || strings.HasPrefix(l, "  ")
		}
		b.WriteString(".PP\n")
		if literal {
			// the lines are the help's, up to 80 columns with their own
			// indent: at the section's 7 they may not fit an 80-column man,
			// so they start as far left as the longest needs
			widest := 0
			for _, l := range lines[1:] {
				widest = max(widest, utf8.RuneCountInString(l))
			}
			in := min(7, max(0, 80-widest))
			b.WriteString(roff(lines[0]) + "\n.nf\n")
			if in < 7 {
				fmt.Fprintf(b, ".in %dn\n", in)
			}
			for _, l := range lines[1:] {
				b.WriteString(roff(l) + "\n")
			}
			if in < 7 {
				b.WriteString(".in\n")
			}
			b.WriteString(".fi\n")
			continue
		}
		b.WriteString(roff(strings.Join(lines, "\n")) + "\n")
	}
}

func writeManOptions(b *strings.Builder, opts []*flags.Option) {
	for _, o := range opts {
		b.WriteString(".TP\n")
		if o.ShortName != 0 {
			fmt.Fprintf(b, "\\fB\\-%c\\fR, ", o.ShortName)
		}
		fmt.Fprintf(b, "\\fB\\-\\-%s\\fR", roff(o.LongName))
		if k := o.Field().Type.Kind(); k != reflect.Bool && k != reflect.Func {
			v := o.ValueName
			if v == "" {
				v = "VALUE"
			}
			fmt.Fprintf(b, " \\fI%s\\fR", roff(v))
		}
		b.WriteString("\n" + roff(optionText(o)) + "\n")
	}
}

// roff escapes text for roff: backslashes, and a leading dot or quote.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			lines[i] = `\&` + l
		}
	}
	return strings.Join(lines, "\n")
}
