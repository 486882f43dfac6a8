package loopkit_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchCheck: scripts/bench-check passes on figures measured at the
// commit they describe, and fails once a path they depend on changed after
// it, when a section has no measured line, or when a document quotes a
// summary that differs from docs/benchmarks.md.
func TestBenchCheck(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip(err)
	}
	script, err := filepath.Abs("scripts/bench-check")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func() (string, bool) {
		cmd := exec.Command("bash", filepath.Join(dir, "scripts/bench-check"))
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		return string(out), err == nil
	}
	src, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	git("init", "-q")
	write("scripts/bench-check", string(src))
	write("internal/a/a.go", "package a\n")
	write("internal/b/b.go", "package b\n")
	git("add", "-A")
	git("commit", "-qm", "code")
	c := git("rev-parse", "--short=12", "HEAD")
	summary := "<!-- summary:driver -->\nThe driver's own cost per iteration: **20 ms**.\n<!-- /summary -->\n"
	write("docs/benchmarks.md", "# Benchmarks\n\n## The driver\n\n<!-- measured: "+c+", paths: internal/a scripts -->\n\n"+summary)
	write("docs/driver.md", "# The driver\n\n"+summary)
	write("README.md", "# x\n")
	git("add", "-A")
	git("commit", "-qm", "figures")
	if out, ok := check(); !ok {
		t.Fatalf("fresh figures refused:\n%s", out)
	}

	write("internal/b/b.go", "package b\n\nvar X = 1\n") // not a path of the figures
	git("commit", "-qam", "b")
	if out, ok := check(); !ok {
		t.Fatalf("a change elsewhere made the figures stale:\n%s", out)
	}

	write("README.md", "# x\n\n<!-- summary:driver -->\nThe driver's own cost per iteration: **5 ms**.\n<!-- /summary -->\n")
	if out, ok := check(); ok || !strings.Contains(out, "README.md: summary driver differs") {
		t.Errorf("a README quoting another figure passed:\n%s", out)
	}
	write("README.md", "# x\n")

	write("internal/a/a.go", "package a\n\nvar Y = 2\n")
	git("commit", "-qam", "a")
	if out, ok := check(); ok || !strings.Contains(out, "are stale; changed since: internal/a/a.go") {
		t.Errorf("figures of a changed path passed:\n%s", out)
	}

	write("docs/benchmarks.md", "# Benchmarks\n\n## The driver\n\n"+summary)
	if out, ok := check(); ok || !strings.Contains(out, "1 sections and 0 measured lines") {
		t.Errorf("a section without its measured line passed:\n%s", out)
	}
}
