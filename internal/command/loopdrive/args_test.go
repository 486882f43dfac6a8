package loopdrive

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/driverargs"
	"github.com/loopkit/loopkit/internal/runconfig"
)

// TestReadLine: the driver's command line becomes the run's settings,
// typed, with the environment and config files under the flags; a bad
// value names its setting and the accepted form.
func TestReadLine(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.WriteFile("TASK.md", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LOOP_RUN_ID", "")
	src := driverargs.Sources{Getenv: os.Getenv, Config: map[string]runconfig.ConfigValue{
		"queue_policy": {Value: "newest_first"}, "max_concurrency": {Value: "4"}}}
	opts, err := readLine("--new", []string{"--prompt", "TASK.md", "--validate", "true", "--name", "n",
		"--reviewer", "rev", "--final-verify", "a", "--final-verify", "b", "--max-runs-per-workspace=2",
		"--watchdog", "off", "--", "agent", "-x"}, src)
	if err != nil {
		t.Fatal(err)
	}
	s := opts.Settings
	if !opts.New || s.Name != "n" || s.MaxConcurrency != 4 || s.QueuePolicy != "newest_first" ||
		s.Reviewer != "rev" || s.MaxRunsPerWorkspace != 2 || len(s.FinalVerify) != 2 || s.NameSource != "spec_slug" ||
		s.Watchdog != "off" || s.MaxIterations != 10 || strings.Join(s.Agent, " ") != "agent -x" {
		t.Errorf("settings: %+v", s)
	}

	bad := []struct {
		mode string
		args []string
		want string
	}{
		{"--new", []string{"--prompt", "TASK.md", "--validate", "v", "--max-concurrency", "0", "--", "a"},
			`--max-concurrency must be a whole number from 1 to 10000, got "0"`},
		{"--new", []string{"--prompt", "TASK.md", "--validate", "v", "--max-runs-per-workspace", "-1", "--", "a"},
			`--max-runs-per-workspace must be a whole number from 0 to 10000, got "-1"`},
		{"--resume", []string{"../x"}, "run id"},
	}
	for _, tc := range bad {
		_, err := readLine(tc.mode, tc.args, driverargs.Sources{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("readLine(%s %q) = %v, want %q", tc.mode, tc.args, err, tc.want)
		}
	}
	if opts, err := readLine("--resume", []string{"r1", "--max-iterations", "7"}, src); err != nil ||
		opts.New || opts.Run != "r1" || opts.MaxIterations != 7 || opts.Settings.MaxConcurrency != 4 || opts.Settings.QueuePolicy != "newest_first" {
		t.Errorf("resume: %+v, %v", opts, err)
	}
}

// TestDriverFlags: --config FILE is the driver's own, taken out before the
// settings are read; the agent's argv is left alone.
func TestDriverFlags(t *testing.T) {
	args := []string{"--config", "c.cfg", "--trust-config", "--", "agent", "--config", "x"}
	if v, _ := driverFlag(args, "--config", true); v != "c.cfg" || !trustFlag(args) {
		t.Errorf("driverFlag misread %q", args)
	}
	if got := strings.Join(withoutConfig(args), " "); got != "--trust-config -- agent --config x" {
		t.Errorf("withoutConfig = %q", got)
	}
	if v, _ := driverFlag([]string{"--config=a", "--"}, "--config", true); v != "a" || trustFlag([]string{"--", "--trust-config"}) {
		t.Errorf("driverFlag misread --config=a or the agent's flag")
	}
	// the last one wins, as for every flag; one without a value is given
	if v, _ := driverFlag([]string{"--config", "a", "--config=b", "--config", "c"}, "--config", true); v != "c" {
		t.Errorf("driverFlag took %q of three --config, want the last", v)
	}
	if v, given := driverFlag([]string{"--prompt", "p", "--config"}, "--config", true); v != "" || !given {
		t.Errorf("driverFlag of a --config without a value: %q, %v", v, given)
	}
}

// TestRuntimeSubKeepsAHeldEntry: a driver's temporary folder and config
// copy are named by its pid, and the next driver removes those of pids
// gone. A driver in another pid namespace (a container, `unshare --pid`)
// sharing the runtime directory sees none of this one's pids: it removed
// the folder of a driver still running, and that driver lost its step's
// record ("step.json: No such file or directory"). An entry its holder
// still holds (flock) stays, whatever its pid says here; one nobody holds
// of a pid gone still goes.
func TestRuntimeSubKeepsAHeldEntry(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	dir, err := runtimeSub("drivers")
	if err != nil {
		t.Fatal(err)
	}
	const gone = 4194399 // past any pid_max: no such process here
	held, left := filepath.Join(dir, fmt.Sprint(gone)+"-1"), filepath.Join(dir, fmt.Sprint(gone)+"-2")
	old := time.Now().Add(-time.Hour)
	for _, d := range []string{held, left} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(d, old, old)
	}
	f, err := os.Open(held) // its holder, in a pid namespace of its own
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH); err != nil {
		t.Fatal(err)
	}
	if _, err := runtimeSub("drivers"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(held); err != nil {
		t.Errorf("the folder of a driver still running was removed: %v", err)
	}
	if _, err := os.Stat(left); err == nil {
		t.Error("the folder of a driver gone was kept")
	}
}

// TestEmitOneRecord: a value is one record whatever it holds; a NUL in it
// (which settings refuse) would have ended it and begun a record of its own.
func TestEmitOneRecord(t *testing.T) {
	var out strings.Builder
	env := cli.NewEnv("loop-drive", nil, nil, &out, io.Discard)
	emit(env, "note", "a\x00agent=/tmp/planted")
	if recs := strings.Split(strings.TrimSuffix(out.String(), "\x00"), "\x00"); len(recs) != 1 {
		t.Errorf("records %q, want one", recs)
	}
}
