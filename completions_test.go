package loopkit_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestBashCompletionRunsNothing: the run ids bash completes come from
// run.json, which the agent can write. compgen -W expands its word list,
// so a run_id "$(cmd)" ran cmd at the person's next Tab; the completion
// offers run ids as they are, and only those that look like one.
func TestBashCompletionRunsNothing(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	mark := filepath.Join(dir, "ran")
	fake := "#!/bin/sh\nprintf '%s\\n' 20261127-1-a '$(touch " + mark + ")' 20261127-2-b\n"
	if err := os.WriteFile(filepath.Join(dir, "loop-view"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("completions/loopkit.bash")
	for _, words := range []string{"loop-view logs 2026", "loop resume ''"} {
		script := "source " + abs + "; COMP_WORDS=(" + words + "); COMP_CWORD=2; " +
			map[bool]string{true: "_loopkit_complete", false: "_loopkit_loop"}[strings.HasPrefix(words, "loop-view")] +
			`; printf '%s\n' "${COMPREPLY[@]}"`
		cmd := exec.Command(bash, "--norc", "-c", script)
		cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", words, err, out)
		}
		if _, err := os.Stat(mark); err == nil {
			t.Fatalf("%s: completing ran the command a run_id held", words)
		}
		if got := strings.TrimSpace(string(out)); got != "20261127-1-a\n20261127-2-b" {
			t.Errorf("%s: completed %q", words, got)
		}
	}
}

// TestCompletionOffersWhatHelpLists: after a subcommand, completion offers
// the options that subcommand's --help lists, and no other: loop-record
// status offered --iteration, --spec and a dozen more that it refuses.
func TestCompletionOffersWhatHelpLists(t *testing.T) {
	t.Parallel()
	checked := 0
	for _, cmd := range []string{"loop-view", "loop-record", "loop-drive"} {
		out, _ := exec.Command(cmd, "--help").Output()
		_, subs, _ := strings.Cut(string(out), "\nCommands:\n")
		subs, _, _ = strings.Cut(subs, "\n\n")
		for _, l := range strings.Split(subs, "\n") {
			f := strings.Fields(l)
			if len(f) == 0 || !strings.HasPrefix(l, "  ") || l[2] == ' ' {
				continue
			}
			help, _ := exec.Command(cmd, f[0], "--help").Output()
			c := exec.Command(cmd, f[0], "--")
			c.Env = append(os.Environ(), "GO_FLAGS_COMPLETION=1")
			cands, err := c.Output()
			if err != nil && cmd == "loop-drive" {
				continue // new, resume, ...: the driver's own flags, not completed
			}
			if err != nil || len(cands) == 0 {
				t.Fatalf("%s %s --: completion failed: %v\n%s", cmd, f[0], err, cands)
			}
			for _, flag := range strings.Fields(string(cands)) {
				if !regexp.MustCompile(`(^|[ ,])` + regexp.QuoteMeta(flag) + `( |=|\n)`).Match(help) {
					t.Errorf("%s %s completes %s, which its --help does not list", cmd, f[0], flag)
				}
			}
			checked++
		}
	}
	if checked < 15 {
		t.Fatalf("checked only %d subcommands", checked)
	}
}

// TestBashCompletesDriverFlags: `loop resume -<Tab>` and `loop init
// -<Tab>` offer every flag the driver's usage lines give them; resume
// lacked --store, --all-stores and --print-unit, init its --force. zsh's
// and fish's scripts offered none of them (.ci/run installs both shells).
func TestBashCompletesDriverFlags(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	view, err := exec.LookPath("loop-view")
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(bash, "scripts/loop", "--help")
	c.Env = append(os.Environ(), "LOOP_BIN="+filepath.Dir(view), "LOOP_STORE="+t.TempDir())
	help, err := c.Output()
	if err != nil {
		t.Fatalf("scripts/loop --help: %v", err)
	}
	abs, _ := filepath.Abs("completions/loopkit.bash")
	for _, sub := range []string{"resume", "init"} {
		var want []string
		for _, l := range strings.Split(string(help), "\n") {
			if strings.Contains(l, "loop "+sub+" ") || (sub == "resume" && strings.HasPrefix(strings.TrimSpace(l), "[--max")) {
				want = append(want, regexp.MustCompile(`--[a-z][a-z-]*`).FindAllString(l, -1)...)
			}
		}
		if len(want) == 0 {
			t.Fatalf("the driver's usage names no flags of %s:\n%s", sub, help)
		}
		script := "source " + abs + "; COMP_WORDS=(loop " + sub + " -); COMP_CWORD=2; _loopkit_loop; printf '%s\\n' \"${COMPREPLY[@]}\""
		out, err := exec.Command(bash, "--norc", "-c", script).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", sub, err, out)
		}
		got := strings.Fields(string(out))
		for _, f := range want {
			if !slices.Contains(got, f) {
				t.Errorf("loop %s -<Tab> does not offer %s (offers %v)", sub, f, got)
			}
		}
		for shell, script := range map[string]string{
			// compadd and _files stand in for zsh's completion system:
			// they print what would be offered
			"zsh":  "compadd() { print -l -- \"$@\"; }; _files() { print FILES; }; service=loop; words=(loop " + sub + " -); CURRENT=3; PREFIX=-; source " + filepath.Join(filepath.Dir(abs), "_loopkit"),
			"fish": "source " + filepath.Join(filepath.Dir(abs), "loopkit.fish") + "; complete -C 'loop " + sub + " -'",
		} {
			path, err := exec.LookPath(shell)
			if err != nil {
				t.Logf("no %s: its script is only read", shell)
				continue
			}
			out, err := exec.Command(path, "-c", script).CombinedOutput()
			if err != nil {
				t.Fatalf("%s, %s: %v\n%s", shell, sub, err, out)
			}
			got := strings.Fields(string(out))
			for _, f := range want {
				if !slices.Contains(got, f) {
					t.Errorf("%s: loop %s -<Tab> does not offer %s (offers %v)", shell, sub, f, got)
				}
			}
		}
		for _, file := range []string{"completions/_loopkit", "completions/loopkit.fish"} {
			text, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range want {
				if !regexp.MustCompile(`[ '\t]` + f + `[ '\n]`).Match(text) {
					t.Errorf("%s does not offer loop %s %s", file, sub, f)
				}
			}
		}
	}
}
