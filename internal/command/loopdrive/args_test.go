package loopdrive

import (
	"os"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/driverargs"
	"github.com/loopkit/loopkit/internal/drivesettings"
)

// TestReadLine: the driver's command line becomes the run's stored
// settings (only non-empty ones) and the options that shape the run
// (PhaseOptions, name, concurrency), never both.
func TestReadLine(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.WriteFile("TASK.md", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LOOP_RUN_ID", "")
	src := driverargs.Sources{Getenv: os.Getenv, Config: map[string]string{"queue_policy": "newest_first", "max_concurrency": "4"}}
	opts, err := readLine("--new", []string{"--prompt", "TASK.md", "--validate", "true", "--name", "n",
		"--reviewer", "rev", "--final-verify", "a", "--final-verify", "b", "--max-runs-per-workspace=2",
		"--watchdog", "off", "--", "agent", "-x"}, src)
	if err != nil {
		t.Fatal(err)
	}
	o := opts.PhaseOptions
	if !opts.New || opts.Name != "n" || opts.MaxConcurrency != 4 || o.QueuePolicy != "newest_first" ||
		o.Reviewer != "rev" || o.MaxPerWorkspace != 2 || len(o.FinalVerify) != 2 || o.NameSource != "spec_slug" {
		t.Errorf("options: %+v", opts)
	}
	for _, k := range phaseKeys {
		if _, ok := opts.Settings[k]; ok {
			t.Errorf("phase option %s stored as a setting", k)
		}
	}
	for k, want := range map[string]string{"watchdog": "off", "max_iterations": "10", "agent": `["agent","-x"]`} {
		if opts.Settings[k] != want {
			t.Errorf("setting %s = %q, want %q", k, opts.Settings[k], want)
		}
	}
	for k, v := range opts.Settings {
		if v == "" {
			t.Errorf("empty setting %s stored", k)
		}
	}

	bad := []struct {
		mode string
		args []string
		want string
	}{
		{"--new", []string{"--prompt", "TASK.md", "--validate", "v", "--max-concurrency", "0", "--", "a"},
			`--max-concurrency must be a positive whole number, got "0"`},
		{"--new", []string{"--prompt", "TASK.md", "--validate", "v", "--max-runs-per-workspace", "-1", "--", "a"},
			`--max-runs-per-workspace must be a whole number, got "-1"`},
		{"--resume", []string{"../x"}, "run id"},
	}
	for _, tc := range bad {
		_, err := readLine(tc.mode, tc.args, driverargs.Sources{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("readLine(%s %q) = %v, want %q", tc.mode, tc.args, err, tc.want)
		}
	}
	if opts, err := readLine("--resume", []string{"r1", "--max-iterations", "7"}, src); err != nil ||
		opts.New || opts.Run != "r1" || opts.MaxIterations != 7 || opts.MaxConcurrency != 4 || opts.QueuePolicy != "newest_first" {
		t.Errorf("resume: %+v, %v", opts, err)
	}
}

// TestSettingNames: every flag a setting's error names is a flag the driver
// takes, so the message tells a person what to change.
func TestSettingNames(t *testing.T) {
	flags := map[string]bool{}
	for _, o := range driverargs.Options {
		flags["--"+o.Flag] = o.Flag != ""
	}
	for key, name := range drivesettings.Names {
		if !flags[name] {
			t.Errorf("setting %s is reported as %s, which scripts/loop run does not take", key, name)
		}
	}
}
