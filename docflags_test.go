package loopkit_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsNameRealFlags: every flag the docs show with a command (in code,
// `loop-view logs RUN --where EXPR`, `loop run --max-cost 5`) is one that
// command's --help lists, so a renamed or removed flag cannot linger in
// the docs. docs/decisions.md, which names past designs' flags on purpose,
// and docs/benchmarks.md, which is generated, are left out.
func TestDocsNameRealFlags(t *testing.T) {
	t.Parallel()
	view, err := exec.LookPath("loop-view")
	if err != nil {
		t.Fatal(err)
	}
	helps := map[string]string{}
	help := func(args ...string) string {
		key := strings.Join(args, " ")
		if h, ok := helps[key]; ok {
			return h
		}
		var c *exec.Cmd
		if args[0] == "loop" {
			c = exec.Command("bash", "scripts/loop", "--help")
			c.Env = append(os.Environ(), "LOOP_BIN="+filepath.Dir(view), "LOOP_STORE="+t.TempDir())
		} else {
			c = exec.Command(args[0], append(args[1:], "--help")...)
		}
		out, err := c.Output()
		if err != nil || len(out) == 0 {
			t.Fatalf("%s --help: %v", key, err)
		}
		helps[key] = string(out)
		return helps[key]
	}
	// the subcommands a command's help lists under "Commands:"
	subcommand := func(cmd, word string) bool {
		_, cmds, _ := strings.Cut(help(cmd), "\nCommands:\n")
		cmds, _, _ = strings.Cut(cmds, "\n\n")
		return regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(word) + ` `).MatchString(cmds)
	}
	files, _ := filepath.Glob("docs/*.md")
	files = append(files, "README.md")
	span := regexp.MustCompile("`([^`\n]+)`")
	use := regexp.MustCompile(`(?:^|[\s($])((?:scripts/)?loop(?:-[a-z]+)?)\s`)
	checked := 0
	for _, f := range files {
		if base := filepath.Base(f); base == "decisions.md" || base == "benchmarks.md" {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var snippets []string
		for _, m := range span.FindAllStringSubmatch(string(data), -1) {
			snippets = append(snippets, m[1])
		}
		fenced := false
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, "```") {
				fenced = !fenced
			} else if fenced {
				snippets = append(snippets, strings.TrimPrefix(strings.TrimSpace(l), "$ "))
			}
		}
		for _, s := range snippets {
			uses := use.FindAllStringSubmatchIndex(s, -1)
			for i, u := range uses {
				end := len(s)
				if i+1 < len(uses) {
					end = uses[i+1][0]
				}
				checked += checkDocFlags(t, f, s, s[u[2]:u[3]], s[u[1]:end], help, subcommand)
			}
		}
	}
	if checked < 60 {
		t.Fatalf("checked only %d flags in the docs", checked)
	}
}

// checkDocFlags checks the flags given to cmd in a docs snippet s (rest is
// what follows cmd) and says how many it checked.
func checkDocFlags(t *testing.T, file, s, cmd, rest string, help func(...string) string, subcommand func(cmd, word string) bool) int {
	flag := regexp.MustCompile(`^--?[A-Za-z][\w-]*`)
	checked := 0
	cmd = strings.TrimPrefix(cmd, "scripts/")
	if cmd != "loop" {
		if _, err := exec.LookPath(cmd); err != nil {
			return 0 // not a command: loop-fleet, loop-runs-*
		}
	}
	// the words given to it: up to a pipe, a list, a comment, or
	// the agent's argv after --
	rest = regexp.MustCompile(`\s(\||;|&&|\|\||#|--)(\s|$)|\)`).Split(" "+rest+" ", 2)[0]
	words := strings.Fields(rest)
	if len(words) == 0 {
		return 0
	}
	args := []string{cmd}
	if cmd == "loop" {
		if !regexp.MustCompile(`^(run|resume|init|trust|cancel|pause|list)$`).MatchString(words[0]) {
			return 0 // prose: "a loop of", "the loop is"
		}
	} else if !strings.HasPrefix(words[0], "-") && subcommand(cmd, words[0]) {
		args = append(args, words[0])
	}
	h := help(args...)
	for _, w := range words {
		name := flag.FindString(w)
		if name == "" {
			continue
		}
		checked++
		if !regexp.MustCompile(`(^|[\s,\[(|])` + regexp.QuoteMeta(name) + `([\s=,\])|]|$)`).MatchString(h) {
			t.Errorf("%s: `%s` names %s, which `%s --help` does not list", file, s, name, strings.Join(args, " "))
		}
	}
	return checked
}
