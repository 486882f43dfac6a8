package loopkit_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// helpTexts are every help a user can ask for: each command, each
// loop-view subcommand.
var helpTexts = [][]string{
	{"loop-validate", "--help"},
	{"loop-record", "--help"},
	{"loop-progress", "--help"},
	{"loop-clean", "--help"},
	{"loop-step", "--help"},
	{"loop-drive", "--help"},
	{"loop-export", "--help"},
	{"loop-tui", "--help"},
	{"loop-view", "--help"},
	{"loop-view", "runs", "--help"},
	{"loop-view", "logs", "--help"},
	{"loop-view", "output", "--help"},
	{"loop-view", "show", "--help"},
	{"loop-view", "describe", "--help"},
	{"loop-view", "tail", "--help"},
	{"loop-view", "-h"},
	{"loop-export", "--help"},
}

// optionLine is an option entry: the name column, then its description.
var optionLine = regexp.MustCompile(`^  (-\w, )?(    )?--?[\w-]+( \S+)?( +)\S`)

// TestHelpFits: every help fits 80 columns, leads with a usage line and
// examples, starts option descriptions by column 30; loop-step's is short
// enough to read in one screen or two. Adding a flag: keep its description
// to one line (52 columns, with its default); put details in docs/.
func TestHelpFits(t *testing.T) {
	t.Parallel()
	texts := helpTexts
	// Every subcommand loop-view, loop-record and loop-drive list,
	// including ones added later.
	for _, cmd := range []string{"loop-view", "loop-record", "loop-drive"} {
		out, _ := exec.Command(cmd, "--help").Output()
		_, cmds, _ := strings.Cut(string(out), "\nCommands:\n")
		cmds, _, _ = strings.Cut(cmds, "\n\n")
		n := len(texts)
		for _, l := range strings.Split(cmds, "\n") {
			if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(l, "  ") && l[2] != ' ' {
				texts = append(texts, []string{cmd, f[0], "--help"})
			}
		}
		if len(texts) < n+5 {
			t.Fatalf("%s --help lists no commands:\n%s", cmd, out)
		}
	}
	for _, args := range texts {
		name := strings.Join(args, " ")
		if _, err := exec.LookPath(args[0]); err != nil && args[0] == "loop-tui" {
			continue // built on its own (make tui), not into the test binary
		}
		out, err := exec.Command(args[0], args[1:]...).Output()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		checkHelp(t, name, string(out))
		if args[0] == "loop-step" {
			if n := strings.Count(string(out), "\n"); n >= 70 {
				t.Errorf("%s: %d lines, want under 70", name, n)
			}
		}
	}
}

func checkHelp(t *testing.T, name, help string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(help, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "Usage: ") && !strings.HasPrefix(lines[0], "usage: ") {
		t.Errorf("%s: first line %q is not a usage line", name, lines[0])
	}
	// installed, a command is found on PATH: a checkout's path in its help
	// (scripts/loop, bin/loop) names nothing there
	// (the driver typed as scripts/loop names itself so: that is its name)
	if h := strings.ReplaceAll(help, strings.Fields(name)[0], ""); strings.Contains(h, "scripts/") || strings.Contains(h, "bin/") {
		t.Errorf("%s: the help names a checkout's path (scripts/, bin/):\n%s", name, help)
	}
	if strings.ContainsRune(help, 0) {
		t.Errorf("%s: a NUL in the help (the driver's records, not text)", name)
	}
	examples := 0
	for i, l := range lines {
		if w := utf8.RuneCountInString(l); w > 80 {
			t.Errorf("%s: line %d is %d columns wide: %q", name, i+1, w, l)
		}
		if strings.HasPrefix(l, "  $ ") {
			examples++
		}
		if m := optionLine.FindStringSubmatchIndex(l); m != nil && m[len(m)-1] > 30 {
			t.Errorf("%s: line %d: description starts at column %d: %q", name, i+1, m[len(m)-1]+1, l)
		}
	}
	if examples < 2 && !strings.Contains(help, "Examples:") {
		t.Errorf("%s: no examples (want two or three '  $ ' lines after the usage)", name)
	}
}

// TestDriverHelp: the driver's help (also for `run --help`) fits like the
// commands', and its flags take the --flag=value form too.
func TestDriverHelp(t *testing.T) {
	t.Parallel()
	view, err := exec.LookPath("loop-view")
	if err != nil {
		t.Fatal(err)
	}
	driver := func(args ...string) *exec.Cmd {
		c := exec.Command("bash", append([]string{"scripts/loop"}, args...)...)
		c.Env = append(os.Environ(), "LOOP_BIN="+filepath.Dir(view), "LOOP_STORE="+t.TempDir())
		return c
	}
	// every subcommand takes --help, and the help fits as the README's
	// ./scripts/loop too (the name it was typed as is in the help)
	for _, args := range [][]string{{"--help"}, {"run", "--help"}, {"resume", "-h"},
		{"init", "--help"}, {"trust", "--help"}, {"pause", "--help"}, {"cancel", "-h"}, {"list", "--help"}} {
		for _, prog := range []string{"scripts/loop", "./scripts/loop"} {
			c := driver(args...)
			c.Args[1] = prog
			var stderr strings.Builder
			c.Stderr = &stderr
			out, err := c.Output()
			if err != nil {
				t.Errorf("%s %v: %v: %s", prog, args, err, stderr.String())
				continue
			}
			checkHelp(t, prog+" "+strings.Join(args, " "), string(out))
		}
	}
	out, _ := driver("run", "--max-iterations=2", "--name=x", "--", "true").CombinedOutput()
	if !strings.Contains(string(out), "--prompt is required") {
		t.Fatalf("--max-iterations=2 not taken:\n%s", out)
	}
	if out, err := driver("--version").Output(); err != nil || !strings.HasPrefix(string(out), "loop ") {
		t.Fatalf("scripts/loop --version: %q %v", out, err)
	}
}

// TestManPagesFit: the man pages scripts/manpages makes (make install,
// releases) read in an 80-column terminal as the help does. man indents
// a section's text by 7 columns, so loop(1), the driver's 80-column help
// as it is, and the examples of loop-step(1), loop-record(1) and
// loop-drive(1) ran to 87 columns and wrapped.
func TestManPagesFit(t *testing.T) {
	t.Parallel()
	man, err := exec.LookPath("man")
	if err != nil {
		t.Skip("man not installed")
	}
	view, err := exec.LookPath("loop-view")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmds := []string{"loop-validate", "loop-record", "loop-progress", "loop-view", "loop-clean", "loop-step", "loop-drive"}
	c := exec.Command("bash", append([]string{"scripts/manpages", dir, filepath.Dir(view)}, cmds...)...)
	c.Env = append(os.Environ(), "LOOP_BIN="+filepath.Dir(view))
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("scripts/manpages: %v\n%s", err, out)
	}
	for _, name := range append(cmds, "loop") {
		c := exec.Command(man, "-l", filepath.Join(dir, name+".1"))
		c.Env = append(os.Environ(), "MANWIDTH=80", "MANPAGER=cat", "PAGER=cat")
		out, err := c.Output()
		if err != nil {
			t.Errorf("man %s: %v", name, err)
			continue
		}
		for i, l := range strings.Split(string(out), "\n") {
			if w := utf8.RuneCountInString(l); w > 80 {
				t.Errorf("man %s: line %d is %d columns: %q", name, i+1, w, l)
			}
		}
	}
}
