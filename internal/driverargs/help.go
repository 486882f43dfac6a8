package driverargs

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/loopkit/loopkit/internal/runconfig"
)

// Prog is the name the driver was invoked as, for its help and hints: the
// driver exports it as LOOP_PROG (`loop` when found on PATH, else the path
// as typed); "loop", the installed name, when unset.
func Prog() string {
	if p := os.Getenv(progEnv); p != "" {
		return p
	}
	return "loop"
}

// Driven reports whether the driver started this process: it exports
// LOOP_PROG to everything it runs.
func Driven() bool { return os.Getenv(progEnv) != "" }

const progEnv = "LOOP_PROG"

const helpHead = `usage: scripts/loop run (SPEC [PLAN] | --prompt FILE) --validate CMD [OPTIONS]
         -- AGENT ARGS...
       scripts/loop resume RUN [--max-iterations N] [--max-duration D]
         [--max-cost USD] [--max-tokens N]
       scripts/loop resume --interrupted [--store DIR]... [--all-stores]
       scripts/loop resume --print-unit systemd|launchd
       scripts/loop init [--force] | trust [FILE...] | cancel RUN | pause RUN
       scripts/loop list | --version

Examples:
  $ scripts/loop init           # .loop/config, TASK.md, the line to start
  $ scripts/loop run --prompt TASK.md --validate 'go test ./...' -- \
      claude -p --output-format stream-json --verbose
  $ scripts/loop resume RUN

Runs the agent, then the validation, again and again until the validation
passes (completed), --max-iterations pass without it (stuck) or a limit
fails the run; every iteration is recorded in the store. Installed by
` + "`make install`" + ` as ` + "`loop`" + `. A config file (.loop/config, LOOP_CONFIG) naming
commands (verify_cmds, reviewer, on_event, ...) is obeyed only once
accepted as it is: trust shows and accepts it, as does run --trust-config.

run options:
`

const helpTail = `
Exit status: 0 completed; 1 stuck; 2 usage or a bad setting (a validation
that cannot run included); 3 failed (the agent or the validation cannot
run, the agent keeps failing, over budget or duration, merge refused or in
conflict); 75 busy (another driver has the run, or another run the work
tree: --worktree) or paused; 129/130/131/141/143 ended by SIGHUP/INT/QUIT/
PIPE/TERM; 70 internal error, or a store it cannot use.
`

// descCol is where option descriptions start; width is the help's.
const descCol, width = 26, 80

// Help is the driver's help: `loop --help`, `run --help` and
// `resume --help` all print it, with the name it was invoked as, or that
// name's last element when the path typed is longer than scripts/loop,
// which the usage lines leave room for within 80 columns.
func Help() string {
	var b strings.Builder
	prog := Prog()
	if len(prog) > len("scripts/loop") {
		prog = filepath.Base(prog)
	}
	b.WriteString(strings.ReplaceAll(helpHead, "scripts/loop", prog))
	writeEntry(&b, "  --config FILE", "key=value settings for this run: in place of LOOP_CONFIG's file, over the store's config")
	var envs []string
	for _, o := range runconfig.Fields() {
		if o.Help == "" || o.Flag == "" { // nor its variable: a knob for tests
			continue
		}
		if o.Env != "" {
			envs = append(envs, o.Env)
		}
		name := "  --" + o.Flag
		if o.Arg != "" {
			name += " " + o.Arg
		}
		writeEntry(&b, name, o.Help)
	}
	b.WriteByte('\n')
	settings := "Settings: flags > environment (" + strings.Join(envs, ", ") +
		") > --config FILE or LOOP_CONFIG's file > the store's config > defaults."
	for _, l := range Wrap(settings, width-2) {
		b.WriteString(l + "\n")
	}
	b.WriteString(helpTail)
	return b.String()
}

// writeEntry writes an option's name column and its description, wrapped
// with continuation lines under the description's column.
// A name too long for its column gets the description on the next line,
// so every description starts at the same column.
func writeEntry(b *strings.Builder, name, desc string) {
	lines := Wrap(desc, width-descCol)
	if len(name)+2 > descCol {
		b.WriteString(name + "\n")
	} else {
		b.WriteString(name + strings.Repeat(" ", descCol-len(name)) + lines[0] + "\n")
		lines = lines[1:]
	}
	for _, l := range lines {
		b.WriteString(strings.Repeat(" ", descCol) + l + "\n")
	}
}

// Wrap folds text into lines of at most w columns, breaking between words;
// an empty text gives one empty line.
func Wrap(text string, w int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > w {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	return append(lines, line)
}
