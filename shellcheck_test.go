package loopkit_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestShellcheck keeps the driver and the helper scripts shellcheck-clean.
// CI installs shellcheck (.ci/run); elsewhere the test skips without it.
// A lint, 4.4 s of CPU: make lint runs it, make test (-short) leaves it.
func TestShellcheck(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a lint: make lint runs it")
	}
	if _, err := exec.LookPath("shellcheck"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("shellcheck is not installed (.ci/run installs it)")
		}
		t.Skip("shellcheck not installed")
	}
	var files []string
	for _, pattern := range []string{"scripts/loop", "scripts/loop.d/*.sh", "scripts/demo", "scripts/demo-agent",
		"scripts/bench", "scripts/bench-check", "scripts/bench.d/*.sh", "scripts/fuzz", ".ci/run", ".ci/agent-clis", "testdata/*/*.sh",
		"scripts/install", "scripts/manpages", "scripts/test-load", "scripts/tmpexec", "completions/loopkit.bash"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	if len(files) < 10 {
		t.Fatalf("found only %d scripts: %v", len(files), files)
	}
	out, err := exec.Command("shellcheck", append([]string{"-x"}, files...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("shellcheck: %v\n%s", err, out)
	}
}

// TestDriverShort keeps the bash driver a sequencer: decisions, parsing and
// help belong in Go (loop-drive), where table tests reach them. 400 lines
// hold the sequencing and what a caller's environment would change in the
// driver's own bash (exported functions and shell options, TMOUT, PATH's
// relative folders).
func TestDriverShort(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("scripts/loop.d/*.sh")
	lines := 0
	for _, f := range append(files, "scripts/loop") {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines += bytes.Count(data, []byte("\n"))
	}
	if lines < 100 || lines > 400 {
		t.Errorf("scripts/loop and scripts/loop.d/*.sh are %d lines, want at most 400: move a decision into loop-drive", lines)
	}
}

// TestDriverNoLocaleCase: bash changes case by the person's locale
// (${x^^}, ${x,,}, declare -u): under tr_TR.UTF-8 "validate" upper-cased
// to "VALİDATE", no variable name, and no run could start. The driver
// spells out what it needs (TestScripts/loop_locale_turkish runs it so).
func TestDriverNoLocaleCase(t *testing.T) {
	t.Parallel()
	caseOp := regexp.MustCompile(`\$\{!?[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?[\^,]|\b(declare|local|typeset) +-[A-Za-z]*[ul]`)
	files, _ := filepath.Glob("scripts/loop.d/*.sh")
	for _, f := range append(files, "scripts/loop") {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if m := caseOp.FindString(line); m != "" && !strings.HasPrefix(strings.TrimSpace(line), "#") {
				t.Errorf("%s:%d: %q changes case by the locale: spell the result out", f, i+1, m)
			}
		}
	}
}
