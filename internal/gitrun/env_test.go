package gitrun

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The person's own git config may colour and reprefix every diff
// (color.diff=always, diff.noprefix, diff.mnemonicPrefix): loopkit's diffs
// are kept as changes.patch and read back, so they stay plain patches
// that git apply takes.
func TestPersonsDiffConfigKeepsPatchesPlain(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	global := filepath.Join(root, "global")
	os.WriteFile(global, []byte("[color]\n\tui = always\n\tdiff = always\n[diff]\n\tnoprefix = true\n\tmnemonicPrefix = true\n[user]\n\tname = t\n\temail = t@t\n"), 0o644)
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := filepath.Join(root, "ws")
	os.Mkdir(dir, 0o755)
	for _, step := range []string{"a\n", "b\n"} {
		os.WriteFile(filepath.Join(dir, "a.txt"), []byte(step), 0o644)
		for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-qm", "x"}} {
			if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v %s", args, err, out)
			}
		}
	}
	for _, args := range [][]string{{"diff", "HEAD~1", "HEAD"}, {"diff", "--stat", "HEAD~1", "HEAD"}, {"show", "HEAD"}, {"log", "-p", "-1"}} {
		out, err := Git(dir, args...)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(out), "\x1b") {
			t.Errorf("git %v is coloured: %q", args, out)
		}
		if args[1] != "--stat" && !strings.Contains(string(out), "diff --git a/a.txt b/a.txt\n") {
			t.Errorf("git %v has no a/ b/ prefixes: %q", args, out)
		}
	}
}
