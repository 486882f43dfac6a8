package driverargs

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loopkit/loopkit/internal/runconfig"
)

// TestParseRun: flag > environment > config > default for every kind of
// option, the --flag=value form, repeatable flags, SPEC [PLAN] and the
// agent's argv after --.
func TestParseRun(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("TASK.md", []byte("do it\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"--prompt", "TASK.md", "--validate", "true"}
	abs := filepath.Join(dir, "TASK.md")
	tests := []struct {
		name   string
		args   []string
		env    map[string]string
		config map[string]string
		want   map[string]string // keys checked in Set
		lists  map[string][]string
		spec   string
		plan   string
		agent  []string
	}{
		{name: "defaults", args: base,
			want: map[string]string{"max_iterations": "10", "timeout": "30m", "validate_timeout": "10m",
				"retries": "0", "retry_backoff": "5s", "max_agent_failures": "3", "completion_mode": "trailing",
				"max_concurrency": "3", "artifact_mode": "workspace", "queue_policy": "fifo",
				"run_branch_prefix": "run/", "max_cost": "0", "worktree": "", "prompt": abs, "dir": dir}},
		{name: "config over default", args: base, config: map[string]string{"iterations": "2", "claude_timeout_sec": "90s"},
			want: map[string]string{"max_iterations": "2", "timeout": "1m30s"}},
		{name: "env over config", args: base, env: map[string]string{"LOOP_ITERATIONS": "1"},
			config: map[string]string{"iterations": "2"}, want: map[string]string{"max_iterations": "1"}},
		{name: "empty env falls through", args: base, env: map[string]string{"LOOP_ITERATIONS": ""},
			config: map[string]string{"iterations": "2"}, want: map[string]string{"max_iterations": "2"}},
		{name: "flag over env", args: append([]string{"--max-iterations", "4"}, base...),
			env: map[string]string{"LOOP_ITERATIONS": "1"}, want: map[string]string{"max_iterations": "4"}},
		{name: "flag=value", args: append([]string{"--max-iterations=4", "--name=a=b"}, base...),
			want: map[string]string{"max_iterations": "4", "name": "a=b"}},
		{name: "last flag wins", args: append([]string{"--timeout", "1m", "--timeout", "2m"}, base...),
			want: map[string]string{"timeout": "2m"}},
		{name: "validate from env", args: []string{"--prompt", "TASK.md"}, env: map[string]string{"LOOP_VALIDATE": "make"},
			config: map[string]string{"verify_cmds": "go test"}, want: map[string]string{"validate": "make"}},
		{name: "validate from config", args: []string{"--prompt", "TASK.md"},
			config: map[string]string{"verify_cmds": "go test"}, want: map[string]string{"validate": "go test"}},
		{name: "seed 003 names and older ones", args: base, config: map[string]string{"max_iterations": "4", "merge_target": "agent/x"},
			want: map[string]string{"max_iterations": "4", "merge_target": "agent/x"}},
		{name: "the seed's name over an older one", args: base, config: map[string]string{"iterations": "5", "max_iterations": "4"},
			want: map[string]string{"max_iterations": "5"}},
		{name: "switches", args: append([]string{"--worktree", "--stuck-agent", "--require-completion"}, base...),
			want: map[string]string{"worktree": "1", "stuck_agent": "1", "require_completion": "1"}},
		{name: "config-only keys", args: base, config: map[string]string{"specs_dir": "specs", "watchdog": "off"},
			want: map[string]string{"specs_dir": "specs", "watchdog": "off"}},
		{name: "flag over config without env", args: append([]string{"--watchdog", "on"}, base...),
			config: map[string]string{"watchdog": "off"}, want: map[string]string{"watchdog": "on"}},
		{name: "repeatable flags", args: append([]string{"--on-event", "a", "--on-event=b", "--final-verify", "x y"}, base...),
			config: map[string]string{"on_event": "c"},
			want:   map[string]string{"on_event": "a\nb"},
			lists:  map[string][]string{"on_event": {"a", "b"}, "final_verify": {"x y"}}},
		{name: "repeatable from config", args: base, config: map[string]string{"on_event": "c"},
			want: map[string]string{"on_event": "c"}, lists: map[string][]string{"on_event": {"c"}}},
		{name: "spec and plan", args: []string{"SPEC.md", "PLAN.md", "--validate", "true"},
			spec: "SPEC.md", plan: "PLAN.md", want: map[string]string{"prompt": ""}},
		{name: "agent argv after --", args: append(base, "--", "claude", "-p", "--", "--max-cost"),
			agent: []string{"claude", "-p", "--", "--max-cost"}},
		{name: "a flag's value may look like a flag", args: append([]string{"--name", "--x"}, base...),
			want: map[string]string{"name": "--x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if tc.agent == nil {
				args = append(append([]string{}, args...), "--", "agent")
			}
			r, err := ParseRun(args, Sources{Getenv: func(k string) string { return tc.env[k] }, Config: config(tc.config)})
			if err != nil {
				t.Fatalf("ParseRun(%q): %v", args, err)
			}
			for k, v := range tc.want {
				if got := r.Settings.Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			for k, v := range tc.lists {
				if got := strings.Split(r.Settings.Get(k), "\n"); !reflect.DeepEqual(got, v) {
					t.Errorf("list %s = %q, want %q", k, got, v)
				}
			}
			if r.Spec != tc.spec || r.Plan != tc.plan {
				t.Errorf("spec, plan = %q, %q; want %q, %q", r.Spec, r.Plan, tc.spec, tc.plan)
			}
			if tc.agent != nil && !reflect.DeepEqual(r.Settings.Agent, tc.agent) {
				t.Errorf("agent = %q, want %q", r.Settings.Agent, tc.agent)
			}
		})
	}
}

func config(m map[string]string) map[string]runconfig.ConfigValue {
	c := map[string]runconfig.ConfigValue{}
	for k, v := range m {
		c[k] = runconfig.ConfigValue{Value: v, Where: "test.config:1"}
	}
	return c
}

// TestParseRunErrors: each command line the driver cannot read is one
// line naming the flag or argument, and the order is the order to fix them.
func TestParseRunErrors(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.WriteFile("TASK.md", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--bogus"}, nil, "unknown flag --bogus"},
		{[]string{"--bogus=1", "--", "a"}, nil, "unknown flag --bogus"},
		{[]string{"-x", "--", "a"}, nil, "unknown flag -x"},
		{[]string{"-prompt", "TASK.md", "--", "a"}, nil, "unknown flag -prompt"},
		{[]string{"--prompt"}, nil, "--prompt needs a value"},
		{[]string{"--prompt=", "--", "a"}, nil, "--prompt needs a value"},
		{[]string{"--prompt", "", "--", "a"}, nil, "--prompt needs a value"},
		{[]string{"--worktree=yes", "--", "a"}, nil, "--worktree takes no value"},
		{[]string{"a", "b", "c", "--", "a"}, nil, "unexpected argument: c"},
		{[]string{"--prompt", "TASK.md", "--validate", "true"}, nil, "no agent command: give it after --"},
		{[]string{"--prompt", "TASK.md", "--validate", "true", "--"}, nil, "no agent command: give it after --"},
		{[]string{"--validate", "true", "--", "a"}, nil, "--prompt is required (or a SPEC argument)"},
		{[]string{"--prompt", "nothere.md", "--validate", "true", "--", "a"}, nil, "--prompt nothere.md: no such file"},
		{[]string{"--prompt", ".", "--validate", "true", "--", "a"}, nil, "--prompt .: a directory, not a file"},
		{[]string{"--prompt", "TASK.md", "--", "a"}, map[string]string{"LOOP_VALIDATE": ""}, "--validate is required (or config verify_cmds)"},
		{[]string{"--prompt", "TASK.md", "--validate", "true", "--dir", "nope", "--", "a"}, nil, "--dir nope: no such directory"},
	}
	for _, tc := range tests {
		_, err := ParseRun(tc.args, Sources{Getenv: func(k string) string { return tc.env[k] }})
		ue, ok := err.(*UsageError)
		if !ok || ue.Msg != tc.want {
			t.Errorf("ParseRun(%q) = %v, want usage error %q", tc.args, err, tc.want)
		}
	}
	for _, args := range [][]string{{"-h"}, {"--help"}, {"--prompt", "x", "--help"}} {
		if r, err := ParseRun(args, Sources{}); err != nil || !r.Help {
			t.Errorf("ParseRun(%q) = %+v, %v; want help", args, r, err)
		}
	}
	// after --, --help is the agent's
	if r, err := ParseRun([]string{"--prompt", "TASK.md", "--validate", "v", "--", "a", "--help"}, Sources{}); err != nil || r.Help {
		t.Errorf("--help after --: %+v, %v", r, err)
	}
}

func TestParseResume(t *testing.T) {
	src := Sources{Getenv: func(k string) string { return map[string]string{"LOOP_MAX_CONCURRENCY": "5"}[k] },
		Config: config(map[string]string{"max_concurrency": "2", "queue_policy": "newest_first"})}
	tests := []struct {
		args []string
		run  string
		max  int
		err  string
	}{
		{args: []string{"r1"}, run: "r1"},
		{args: []string{"r1", "--max-iterations", "12"}, run: "r1", max: 12},
		{args: []string{"--max-iterations=12", "r1"}, run: "r1", max: 12},
		{args: []string{}, err: ResumeUsage()},
		{args: []string{"r1", "r2"}, err: ResumeUsage()},
		{args: []string{"r1", "--max-iterations"}, err: "--max-iterations needs a value"},
		{args: []string{"r1", "--max-iterations", "0"}, err: `--max-iterations must be a whole number from 1 to 1000000, got "0"`},
		{args: []string{"r1", "--max-iterations=ten"}, err: `--max-iterations must be a whole number from 1 to 1000000, got "ten"`},
		{args: []string{"r1", "--max-duration", "9000h"}, err: `--max-duration must be a duration like 90s, 5m or 3600 (seconds), got "9000h"`},
		{args: []string{"r1", "--bogus"}, err: "unknown flag --bogus"},
		{args: []string{"r1", "--max-cost", "-1"}, err: `--max-cost must be a number from 0 to 1e9, got "-1"`},
		{args: []string{"r1", "--max-tokens=many"}, err: `--max-tokens must be a whole number from 0 to 9e15, got "many"`},
	}
	for _, tc := range tests {
		r, err := ParseResume(tc.args, src)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("ParseResume(%q) = %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || r.Run != tc.run || r.MaxIterations != tc.max {
			t.Errorf("ParseResume(%q) = %+v, %v", tc.args, r, err)
			continue
		}
		if r.Settings.MaxConcurrency != 5 || r.Settings.QueuePolicy != "newest_first" {
			t.Errorf("ParseResume(%q): settings %+v, want env and config applied", tc.args, r.Settings)
		}
	}
	// a run failed at its cost or token cap goes on with a larger one
	if r, err := ParseResume([]string{"r1", "--max-cost", "5", "--max-tokens=900000"}, src); err != nil ||
		r.Caps["max_cost"] != "5" || r.Caps["max_tokens"] != "900000" || len(r.Caps) != 2 {
		t.Errorf("resume with new caps: %+v, %v", r, err)
	}
	if r, err := ParseResume([]string{"-h"}, src); err != nil || !r.Help {
		t.Errorf("resume -h: %+v, %v", r, err)
	}
}

// TestHelpTable: the help lists every setting with a flag and a help line,
// and every line fits.
func TestHelpTable(t *testing.T) {
	help := Help()
	for _, f := range runconfig.Fields() {
		if f.Flag != "" && f.Help != "" && !strings.Contains(help, "  --"+f.Flag) {
			t.Errorf("help has no --%s", f.Flag)
		}
	}
	for i, l := range strings.Split(help, "\n") {
		if w := utf8.RuneCountInString(l); w > 80 {
			t.Errorf("help line %d is %d columns: %q", i+1, w, l)
		}
		// an option's description starts at descCol, or on the next line
		if strings.HasPrefix(l, "  --") && strings.Contains(strings.TrimSpace(l), "  ") &&
			(len(l) <= descCol || l[descCol-1] != ' ' || l[descCol] == ' ') {
			t.Errorf("help line %d: description not at column %d: %q", i+1, descCol+1, l)
		}
	}
}

// TestHelpExitStatus: the help's exit statuses say what docs/driver.md's
// table says: a validation that cannot run is 2 at start and 3 in a run,
// and 75 is also a work tree another run edits, with --worktree the way out.
func TestHelpExitStatus(t *testing.T) {
	_, exit, _ := strings.Cut(Help(), "Exit status:")
	exit = strings.Join(strings.Fields(exit), " ")
	for _, want := range []string{"2 usage or a bad setting (a validation that cannot run included)",
		"3 failed (the agent or the validation cannot run", "another run the work tree: --worktree"} {
		if !strings.Contains(exit, want) {
			t.Errorf("the help's exit statuses do not say %q: %s", want, exit)
		}
	}
}

// TestParseRunUnkeptPaths: a workspace or prompt a run cannot keep (not
// UTF-8: its JSON records would name another folder; a newline: the
// driver's key=value answers would cut it) is a usage error naming it, as
// the shell would quote it, before any run exists.
func TestParseRunUnkeptPaths(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct{ dir, want string }{
		{"new\nline", `a newline in the path`},
		{"bad\xff", `not valid UTF-8`},
	} {
		if err := os.Mkdir(tc.dir, 0o755); err != nil {
			t.Logf("%q: %v (the file system refuses the name)", tc.dir, err)
			continue
		}
		if err := os.WriteFile(filepath.Join(tc.dir, "TASK.md"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		abs, _ := filepath.Abs(tc.dir)
		for _, args := range [][]string{
			{"--prompt", filepath.Join(tc.dir, "TASK.md"), "--validate", "true", "--", "a"},
			{"--prompt", filepath.Join(tc.dir, "TASK.md"), "--validate", "true", "--dir", tc.dir, "--", "a"},
		} {
			_, err := ParseRun(args, Sources{Getenv: func(string) string { return "" }})
			var ue *UsageError
			if !errors.As(err, &ue) || !strings.Contains(ue.Msg, tc.want) || !strings.Contains(ue.Msg, strings.TrimSuffix(strconv.Quote(abs), `"`)) || strings.Contains(ue.Msg, "\n") {
				t.Errorf("ParseRun(%q) = %v, want one line naming %q: %s", args, err, abs, tc.want)
			}
		}
	}
}
