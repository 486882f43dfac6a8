package runname

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/loopkit/loopkit/internal/procid"
)

func TestClean(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Fix the adder", "Fix the adder"},
		{"\n\n  \"Fix   the\tadder.\"  \nmore", "Fix the adder"},
		{"# **Calc fixes**", "Calc fixes"},
		{"Café crème — fix", "Caf crme fix"},
		{"\x1b[31mred\x1b[0m", "[31mred[0m"},
		{"", ""},
		{"日本語", ""},
		{strings.Repeat("word ", 30), "word word word word word word word word word word word word word"},
		{strings.Repeat("x", 100), strings.Repeat("x", 64)},
	} {
		if got := Clean(c.in); got != c.want {
			t.Errorf("Clean(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := Clean(c.in); len(got) > MaxLen {
			t.Errorf("Clean(%q) is %d long", c.in, len(got))
		}
	}
}

func TestSpecSlug(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if got := SpecSlug(write("a.md", "intro\n\n# Add subtraction\n\nbody")); got != "Add subtraction" {
		t.Errorf("heading: %q", got)
	}
	if got := SpecSlug(write("fix-parser.md", "no heading")); got != "fix-parser" {
		t.Errorf("file name: %q", got)
	}
	if got := SpecSlug(filepath.Join(dir, "missing.txt")); got != "missing" {
		t.Errorf("missing file: %q", got)
	}
	// the person's language is kept: "Caf crme fix" was shown, and a
	// Japanese heading gave no label, so the file name stood in
	for text, want := range map[string]string{
		"# Café crème — fix":            "Café crème — fix",
		"# 日本語のバグを直す":                   "日本語のバグを直す",
		"# Gr\xf6\xdfe \u00fcber":       "Gre über", // Latin-1 bytes are no text
		"# a\u202eb\u0085c\u00a0d":      "ab c d",   // no direction override; NEL and NBSP are spaces
		"# " + strings.Repeat("ü", 100): strings.Repeat("ü", MaxLen),
	} {
		if got := SpecSlug(write("task.md", text)); got != want {
			t.Errorf("SpecSlug of %q = %q, want %q", text, got, want)
		}
	}
	if got := SpecSlug(write("größe.md", "no heading")); got != "größe" {
		t.Errorf("file name: %q", got)
	}
}

func TestAsk(t *testing.T) {
	ctx := context.Background()
	a, err := Ask(ctx, []string{"sh", "-c", `cat >/dev/null; echo '{"type":"result","subtype":"success","result":"Subtraction for calc","total_cost_usd":0.01}'`}, "p", "", 10*time.Second)
	if err != nil || a.Name != "Subtraction for calc" || a.Usage.CostUSD == nil || *a.Usage.CostUSD != 0.01 {
		t.Fatalf("Ask = %+v, %v", a, err)
	}
	if a.ExitCode == nil || *a.ExitCode != 0 || a.Format != "claude" || a.Ended.Before(a.Started) {
		t.Errorf("the call is not described: %+v", a)
	}
	a, err = Ask(ctx, []string{"sh", "-c", "echo nope >&2; exit 3"}, "p", "", 10*time.Second)
	if err == nil || !strings.Contains(err.Error(), "nope") || a == nil || a.ExitCode == nil || *a.ExitCode != 3 {
		t.Errorf("failing agent: %+v %v", a, err)
	}
	// {prompt} and {prompt_file} are filled as loop-step fills them, and
	// the agent's stdin is then empty
	for _, ph := range []string{"{prompt}", "{prompt_file}"} {
		a, err = Ask(ctx, []string{"sh", "-c", `test -z "$(cat)" || exit 9; case $1 in /*) cat "$1";; *) echo "$1";; esac`, "sh", ph}, "Named by arg", "", 10*time.Second)
		if err != nil || a.Name != "Named by arg" {
			t.Errorf("%s: Ask = %+v, %v", ph, a, err)
		}
	}
	if _, err := Ask(ctx, []string{"sh", "-c", "echo"}, "p", "", 10*time.Second); err == nil {
		t.Error("empty answer accepted")
	}
	if _, err := Ask(ctx, []string{"sleep", "5"}, "p", "", 100*time.Millisecond); err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Errorf("timeout: %v", err)
	}
	if a, err := Ask(ctx, []string{"no-such-naming-agent-x"}, "p", "", time.Second); err == nil || a.ExitCode != nil {
		t.Errorf("missing agent: %+v %v (a call that never started has no exit code: nothing to record)", a, err)
	}
}

// The naming call runs as an agent step does: at its timeout its whole
// group stops (a wrapper's agent went on, paid, after its sh was killed),
// it gets no variable the driver set for loopkit's own commands, and a
// flood of output is no name, not memory.
func TestAskAsAStep(t *testing.T) {
	ctx := context.Background()
	pidFile := filepath.Join(t.TempDir(), "pid")
	_, err := Ask(ctx, []string{"sh", "-c", "sleep 300 & echo $! > '" + pidFile + "'; wait"}, "p", "", 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Errorf("err = %v, want a timeout", err)
	}
	data, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if pid <= 0 {
		t.Fatalf("pid %q", data)
	}
	for end := time.Now().Add(10 * time.Second); procid.Running(pid); { // SIGKILL sent, not yet acted on
		if time.Now().After(end) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the naming agent's child %d outlived its timeout", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Setenv("LOOP_PROG", "loop")
	t.Setenv("LOOPKIT_DRIVE_REQUESTS", "1")
	a, err := Ask(ctx, []string{"sh", "-c", `cat >/dev/null; echo "env ${LOOP_PROG:-none} ${LOOPKIT_DRIVE_REQUESTS:-none}"`}, "p", "", 10*time.Second)
	if err != nil || a.Name != "env none none" {
		t.Errorf("Ask = %+v, %v: the driver's variables reached the naming agent", a, err)
	}
	_, err = Ask(ctx, []string{"sh", "-c", "cat >/dev/null; head -c 9000000 /dev/zero | tr '\\0' y"}, "p", "", 30*time.Second)
	if err == nil || !strings.Contains(err.Error(), "more than 4 MiB") {
		t.Errorf("err = %v, want the output refused", err)
	}
}

// The naming prompt quotes the spec's first 4 KiB: cut through a CJK
// character, the naming agent got half of it (U+FFFD).
func TestPromptCutWhole(t *testing.T) {
	p := Prompt("xy" + strings.Repeat("日本語", 2000))
	if !utf8.ValidString(p) {
		t.Errorf("naming prompt is not UTF-8: ...%q", p[len(p)-12:])
	}
}
