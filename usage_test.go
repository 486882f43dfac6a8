package loopkit_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestUsageErrors: flags that conflict, would be ignored, or are out of
// range are usage errors (exit 2) that name the flag (or the config file,
// line and key), before anything is written.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args   string
		config string // written to c.conf and passed with --config
		want   string // regexp the stderr must match
	}{
		// Conflicting or ignored flags of loop-record.
		{"loop-record --new-run --status completed", "", `--new-run and --status cannot be used together\nhint: create the run first`},
		{"loop-record --run r --status completed --iteration 2", "", `--iteration has no effect with --status\nhint: did you mean --finish\?`},
		{"loop-record --run r --status failed --exit-status", "", `--exit-status has no effect with --status`},
		{"loop-record --run r --snapshot ''", "", `--snapshot needs a milestone name`},
		{"loop-record --run r --snapshot start --status failed", "", `--status and --snapshot cannot be used together`},
		{"loop-record --run r --repair --hypotheses", "", `--repair and --hypotheses cannot be used together`},
		{"loop-record --run r --message why", "", `--message has no effect with an iteration on stdin\nhint: did you mean --finish --message`},
		{"loop-record --run r --name n", "", `--name has no effect with an iteration on stdin\nhint: did you mean loop-record new --name NAME\?`},
		{"loop-record --new-run --pid 5", "", `--pid has no effect with --new-run`},
		// Modes: two old mode flags, or a subcommand and an old mode flag,
		// name both (--verify was ignored beside --status before).
		{"loop-record --run r --status completed --verify", "", `--status and --verify cannot be used together`},
		{"loop-record status completed --run r --verify", "", `the status subcommand and --verify \(the old form of 'verify'\) cannot be used together`},
		{"loop-record status --run r", "", `status needs STATUS`},
		{"loop-record set --run r", "", `set needs --setting KEY=VALUE, --pid or --pgid`},
		{"loop-record new --run r --pid 5", "", `--pid has no effect with loop-record new`},
		{"loop-drive --next --cancel --run r", "", `--next and --cancel cannot be used together`},
		{"loop-drive next --pause --run r", "", `the next subcommand and --pause cannot be used together`},
		{"loop-drive --run r", "", `no subcommand: give one of new, resume`},
		{"loop-record --run r --finish --status completed", "", `--finish has no effect with --status`},
		{"loop-record --run r --pid -1", "", `--pid: -1 is out of range \(want 2 or more\)`},
		{"loop-record --run r --iteration 0", "", `--iteration: 0 is out of range`},
		// Durations that used to mean "no timeout".
		{"loop-validate --timeout NaN -- true", "", `--timeout: invalid duration "NaN"`},
		{"loop-validate --timeout Inf -- true", "", `--timeout: invalid duration "Inf"`},
		{"loop-validate --timeout 1e20 -- true", "", `--timeout: invalid duration "1e20"`},
		{"loop-validate --timeout 1e-12 -- true", "", `--timeout: invalid duration "1e-12"`},
		{"loop-validate --timeout -5 -- true", "", `--timeout: invalid duration "-5": negative`},
		{"loop-step --timeout 9999999h --prompt p -- true", "", `--timeout: invalid duration`},
		{"loop-step --retry-backoff NaN --prompt p -- true", "", `--retry-backoff: invalid duration`},
		// Numeric settings, as flags and as config keys.
		{"loop-clean --keep-days 999999999999", "", `--keep-days: 999999999999 is out of range \(want 0 to 36500\)`},
		{"loop-clean --keep-last -1", "", `--keep-last: -1 is out of range`},
		{"loop-clean", "keep_days=999999999999\n", `c.conf:1: key "keep_days": 999999999999 is out of range`},
		{"loop-clean", "# retention\nkeep_last = -3\n", `c.conf:2: key "keep_last": -3 is out of range`},
		{"loop-record --run r --status completed", "keep_days=999999999999\n", `c.conf:1: key "keep_days": 999999999999 is out of range`},
		// a run's setting is read by the schema's parser, with the driver's message
		{"loop-validate -- true", "verify_timeout_sec=NaN\n", `c.conf:1: verify_timeout_sec must be a duration like 90s, 5m or 3600 \(seconds\), got "NaN"`},
		{"loop-validate -- true", "inline_cap_bytes=-1\n", `c.conf:1: key "inline_cap_bytes": -1 is out of range`},
		{"loop-validate --inline-cap 99999999999 -- true", "", `--inline-cap: 99999999999 is out of range`},
		{"loop-step --prompt p --retries 1000 -- true", "", `--retries: 1000 is out of range \(want 0 to 100\)`},
		{"loop-step --prompt p -- true", "claude_retries=-1\n", `c.conf:1: claude_retries must be a whole number from 0 to 100, got "-1"`},
		{"loop-progress --max-entries -1 r", "", `--max-entries: -1 is out of range`},
		{"loop-progress r", "progress_max_chars=1e3\n", `c.conf:1: key "progress_max_chars": bad value "1e3"`},
		{"loop-view logs --last -2", "", `--last: -2 is out of range`},
		{"loop-view runs --log-level loud", "", `unknown log level "loud"`},
	} {
		t.Run(tc.args, func(t *testing.T) {
			dir := t.TempDir()
			st := filepath.Join(dir, "s")
			args := []string{"-c", tc.args + " </dev/null"}
			if tc.config != "" {
				if err := os.WriteFile(filepath.Join(dir, "c.conf"), []byte(tc.config), 0o600); err != nil {
					t.Fatal(err)
				}
				args[1] = tc.args + " --config c.conf </dev/null"
				if strings.Contains(tc.args, " -- ") {
					args[1] = strings.Replace(tc.args, " -- ", " --config c.conf -- ", 1) + " </dev/null"
				}
			}
			cmd := exec.Command("sh", args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "LOOP_STORE="+st)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 {
				t.Fatalf("%s: %v, want exit 2\n%s", args[1], err, out)
			}
			if !regexp.MustCompile(tc.want).Match(out) {
				t.Fatalf("%s: stderr does not match %q:\n%s", args[1], tc.want, out)
			}
			if strings.Count(strings.TrimSpace(string(out)), "\n") > 1 {
				t.Errorf("%s: more than an error and a hint:\n%s", args[1], out)
			}
			if _, err := os.Stat(filepath.Join(st, "runs")); err == nil {
				if ents, _ := os.ReadDir(filepath.Join(st, "runs")); len(ents) > 0 {
					t.Errorf("%s: a usage error created runs: %v", args[1], ents)
				}
			}
		})
	}
}
