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
	dir := personsRepo(t, "[color]\n\tui = always\n\tdiff = always\n[diff]\n\tnoprefix = true\n\tmnemonicPrefix = true\n", "a\n", "b\n")
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

// A person's diff.context=0 (or 1) is for their own reading: a patch
// loopkit keeps (changes.patch, loop-view diff) must be one plain git apply
// takes, and git apply refuses hunks without context unless told
// --unidiff-zero.
func TestPersonsDiffContextKeepsPatchesApplicable(t *testing.T) {
	lines := "1\n2\n3\n4\n5\n6\n7\n8\n9\n"
	dir := personsRepo(t, "[diff]\n\tcontext = 0\n", lines, strings.Replace(lines, "5\n", "five\n", 1))
	patch, err := Git(dir, "diff", "HEAD~1", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	apply := exec.Command("git", "-C", dir, "apply", "--check", "-R")
	apply.Stdin = strings.NewReader(string(patch))
	if out, err := apply.CombinedOutput(); err != nil {
		t.Errorf("git apply refuses the diff: %v %s\n%s", err, out, patch)
	}
}

// A person's diff.submodule=log (or diff) shows a gitlink's change as
// "Submodule sub 0000000...1234567 (new submodule)", a line git apply
// skips: the change would be missing from every patch loopkit keeps.
func TestPersonsDiffSubmoduleKeepsGitlinksInPatches(t *testing.T) {
	dir := personsRepo(t, "[diff]\n\tsubmodule = log\n", "a\n")
	gitT(t, dir, "update-index", "--add", "--cacheinfo", "160000,1111111111111111111111111111111111111111,sub")
	gitT(t, dir, "commit", "-qm", "y")
	patch, err := Git(dir, "diff", "HEAD~1", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(patch), "+Subproject commit 1111111111111111111111111111111111111111\n") {
		t.Errorf("the gitlink's change is not a patch:\n%s", patch)
	}
}

// Under a person's German locale git's messages stay English: loopkit
// reads some of them (a full disk, dubious ownership). Needs localedef
// and git's translations; skipped without them.
func TestGitMessagesEnglishInAnyLocale(t *testing.T) {
	if _, err := exec.LookPath("localedef"); err != nil {
		t.Skip("no localedef")
	}
	loc := t.TempDir()
	if out, err := exec.Command("localedef", "-i", "de_DE", "-f", "UTF-8", filepath.Join(loc, "de_DE.UTF-8")).CombinedOutput(); err != nil {
		t.Skipf("localedef: %v %s", err, out)
	}
	t.Setenv("LOCPATH", loc)
	t.Setenv("LC_ALL", "de_DE.UTF-8")
	t.Setenv("LANGUAGE", "de")
	dir := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	plain, _ := exec.Command("git", "-C", dir, "rev-parse").CombinedOutput()
	if strings.Contains(string(plain), "not a git repository") {
		t.Skipf("git has no German messages here: %s", plain)
	}
	_, err := Git(dir, "rev-parse")
	if err == nil || !strings.Contains(err.Error(), "not a git repository") {
		t.Errorf("git's message under LC_ALL=de_DE: %v (git alone says %s)", err, plain)
	}
}

// personsRepo is a repository under a global git config of the person's
// (config, a user added), a.txt committed once with each of steps.
func personsRepo(t *testing.T, config string, steps ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	global := filepath.Join(root, "global")
	os.WriteFile(global, []byte(config+"[user]\n\tname = t\n\temail = t@t\n"), 0o644)
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := filepath.Join(root, "ws")
	os.Mkdir(dir, 0o755)
	for _, step := range steps {
		os.WriteFile(filepath.Join(dir, "a.txt"), []byte(step), 0o644)
		for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-qm", "x"}} {
			gitT(t, dir, args...)
		}
	}
	return dir
}

// gitT runs the real git (no policy) in dir, or fails the test.
func gitT(t *testing.T, dir string, args ...string) {
	t.Helper()
	if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
}
