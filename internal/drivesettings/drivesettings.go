// Package drivesettings checks the settings a driver stores in a run before
// anything runs, so that a typo is one line and exit 2 instead of a run that
// fails the same way on every iteration.
package drivesettings

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/loopkit/loopkit/internal/cli"
)

// AgentKey holds the agent's argv as a JSON array of strings.
const AgentKey = "agent"

// Check validates one setting's value (never called for an empty value:
// an empty setting means the default).
type Check func(v string) error

// Checks are the known settings and how each is checked. A feature that
// adds a setting adds its check here; unknown keys are stored unchecked.
var Checks = map[string]Check{
	"max_iterations":         positive,
	"max_concurrency":        positive,
	"max_runs_per_workspace": whole,
	"max_agent_failures":     whole,
	"retries":                whole,
	"max_tokens":             whole,
	"timeout":                duration,
	"validate_timeout":       duration,
	"retry_backoff":          duration,
	"max_duration":           duration,
	"duration_grace":         duration,
	"max_cost":               dollars,
	"completion_mode":        oneOf("trailing", "exact"),
	"merge_strategy":         oneOf("none", "merge", "squash"),
	"artifact_mode":          oneOf("workspace", "mirror"),
	"transcripts":            oneOf("keep", "drop"),
	"require_completion":     boolean,
	"stuck_agent":            boolean,
	"worktree":               boolean,
	"prompt":                 file,
	"dir":                    directory,
	// the watchdog, rate-limit waits and hooks
	"watchdog":           oneOf("on", "off"),
	"watchdog_k":         positive,
	"max_rewrites":       whole,
	"max_wait":           duration,
	"rate_limit_backoff": duration,
	"rate_limit_policy":  oneOf("loop", "agent"),
	"hook_timeout":       positiveDuration, // a hook must not hang the driver
}

// Names maps a setting to the flag a person typed, for messages.
var Names = map[string]string{
	"max_iterations": "--max-iterations", "max_concurrency": "--max-concurrency",
	"max_runs_per_workspace": "--max-runs-per-workspace",
	"max_agent_failures":     "--max-agent-failures", "retries": "--retries",
	"max_tokens": "--max-tokens", "timeout": "--timeout",
	"validate_timeout": "--validate-timeout", "retry_backoff": "--retry-backoff",
	"max_cost": "--max-cost", "completion_mode": "--completion-mode",
	"merge_strategy": "--merge-strategy", "artifact_mode": "--artifact-mode", "transcripts": "--transcripts",
	"prompt": "--prompt", "dir": "--dir",
	"watchdog": "--watchdog", "watchdog_k": "--watchdog-k", "max_rewrites": "--max-rewrites",
	"max_wait": "--max-wait", "hook_timeout": "--hook-timeout",
	"rate_limit_backoff": "--rate-limit-backoff",
	"rate_limit_policy":  "--rate-limit-policy",
	"max_duration":       "--max-duration",
}

// Validate checks every setting, in key order so the first error is stable,
// then the agent command (looked up on PATH, or relative to dir), then the
// validation's first command.
func Validate(settings map[string]string, agent []string) error {
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		check, v := Checks[k], settings[k]
		if check == nil || v == "" {
			continue
		}
		if err := check(v); err != nil {
			name := Names[k]
			if name == "" {
				name = k
			}
			return fmt.Errorf("%s %s", name, err)
		}
	}
	if len(agent) == 0 {
		return errors.New("no agent command: give it after --")
	}
	if err := AgentRunnable(agent[0], settings["dir"]); err != nil {
		return err
	}
	return ValidationRunnable(settings["validate"], settings["dir"])
}

// AgentRunnable says why the agent command could not be started: not on
// PATH, no such file, or not executable. A relative path with a slash is
// relative to the workspace dir, where the agent will run.
func AgentRunnable(name, dir string) error {
	path := name
	if strings.Contains(name, "/") {
		if !filepath.IsAbs(name) && dir != "" {
			path = filepath.Join(dir, name)
		}
		fi, err := os.Stat(path)
		if err != nil {
			return fmt.Errorf("agent command %s: no such file", name)
		}
		if fi.IsDir() || fi.Mode()&0o111 == 0 {
			return fmt.Errorf("agent command %s: not executable (chmod +x it)", name)
		}
		return nil
	}
	if _, err := exec.LookPath(name); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return fmt.Errorf("agent command %s: not found on PATH", name)
		}
		return fmt.Errorf("agent command %s: %v", name, err)
	}
	return nil
}

// EncodeAgent and DecodeAgent store the agent's argv in one setting.
func EncodeAgent(argv []string) string {
	b, _ := json.Marshal(argv)
	return string(b)
}

// DecodeAgent reads what EncodeAgent stored.
func DecodeAgent(v string) ([]string, error) {
	var argv []string
	if err := json.Unmarshal([]byte(v), &argv); err != nil {
		return nil, fmt.Errorf("agent setting is not a JSON list of strings: %w", err)
	}
	return argv, nil
}

func positive(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return fmt.Errorf("must be a positive whole number, got %q", v)
	}
	return nil
}

func whole(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return fmt.Errorf("must be a whole number, got %q", v)
	}
	return nil
}

func duration(v string) error {
	if _, err := cli.ParseDuration(v); err != nil {
		return fmt.Errorf("must be a duration like 90s, 5m or 3600 (seconds), got %q", v)
	}
	return nil
}

func positiveDuration(v string) error {
	if d, err := cli.ParseDuration(v); err != nil || d == 0 {
		return fmt.Errorf("must be a duration above 0 like 10s, got %q", v)
	}
	return nil
}

func dollars(v string) error {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || strings.ContainsAny(v, "eEnNxX") {
		return fmt.Errorf("must be a number of dollars, got %q", v)
	}
	return nil
}

func boolean(v string) error {
	switch v {
	case "1", "0", "true", "false", "yes", "no", "on", "off":
		return nil
	}
	return fmt.Errorf("must be true or false, got %q", v)
}

func oneOf(choices ...string) Check {
	return func(v string) error {
		for _, c := range choices {
			if v == c {
				return nil
			}
		}
		return fmt.Errorf("must be %s, got %q", strings.Join(choices, " or "), v)
	}
}

func file(v string) error {
	fi, err := os.Stat(v)
	if err != nil || fi.IsDir() {
		return fmt.Errorf("%s: no such file", v)
	}
	return nil
}

func directory(v string) error {
	fi, err := os.Stat(v)
	if err != nil || !fi.IsDir() {
		return fmt.Errorf("%s: no such directory", v)
	}
	return nil
}
