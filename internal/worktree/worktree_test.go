package worktree

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestPath(t *testing.T) {
	for _, c := range []struct{ tmpl, want, err string }{
		{DefaultTemplate, "/src/calc.run-fix-add", ""},
		{"{{repo}}-wt/{{ run_branch }}", "/src/calc/calc-wt/run/fix-add", ""},
		{"/tmp/wt/{{ run_branch|sanitize }}", "/tmp/wt/run-fix-add", ""},
		{"../{{ branch }}", "", "unknown variable"},
		{"../{{ run_branch | upper }}", "", "unknown filter"},
		{"../{{ repo }", "", "cannot read"},
	} {
		got, err := Path(c.tmpl, "/src/calc", "run/fix-add")
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Path(%q) error = %v, want %q", c.tmpl, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Path(%q) = %q, %v, want %q", c.tmpl, got, err, c.want)
		}
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{"Fix the Adder!": "fix-the-adder", "  ": "run", "a/b_c": "a-b-c"} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCreate(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	top := filepath.Join(root, "calc")
	git := func(dir string, args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	os.MkdirAll(top, 0o755)
	git(top, "init", "-q", "-b", "trunk")
	git(top, "commit", "-q", "--allow-empty", "-m", "init")
	if b := DefaultBranch(top); b != FallbackBase {
		t.Errorf("DefaultBranch without main/master/origin = %q", b)
	}
	s := Spec{Top: top, Base: "trunk", Prefix: DefaultPrefix, Slug: "fix", Template: DefaultTemplate}
	c, err := Create(s)
	if err != nil || c.Path != filepath.Join(root, "calc.run-fix") || c.Branch != "run/fix" {
		t.Fatalf("Create = %+v, %v", c, err)
	}
	c, err = Create(s)
	if err != nil || c.Branch != "run/fix-2" || c.Path != filepath.Join(root, "calc.run-fix-2") {
		t.Fatalf("second Create = %+v, %v", c, err)
	}
	s.Base = "nope"
	if _, err := Create(s); err == nil || !strings.Contains(err.Error(), "base_branch") {
		t.Errorf("bad base: %v", err)
	}
	git(top, "branch", "master")
	if b := DefaultBranch(top); b != "master" {
		t.Errorf("DefaultBranch with master = %q", b)
	}
}

// A run's worktree has the submodules the primary has checked out, at the
// commits the base names, cloned from the primary's checkouts (no network:
// here the URL the repository names leads nowhere). git worktree add
// leaves them empty, and a validation that builds them would fail every
// paid iteration.
func TestCreateSubmodules(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	git := func(dir string, args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "protocol.file.allow=always"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	sub, top := filepath.Join(root, "sub"), filepath.Join(root, "app")
	os.MkdirAll(sub, 0o755)
	os.MkdirAll(top, 0o755)
	git(sub, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(sub, "lib.go"), []byte("package lib\n"), 0o644)
	git(sub, "add", "-A")
	git(sub, "commit", "-qm", "lib")
	git(top, "init", "-q", "-b", "main")
	git(top, "submodule", "add", "-q", sub, "vendor/lib")
	git(top, "commit", "-qm", "with lib")
	gone := filepath.Join(root, "gone", "sub.git")
	git(top, "config", "-f", ".gitmodules", "submodule.vendor/lib.url", gone)
	git(top, "config", "submodule.vendor/lib.url", gone)
	git(top, "commit", "-qam", "lib moved")
	c, err := Create(Spec{Top: top, Base: "main", Prefix: DefaultPrefix, Slug: "fix", Template: DefaultTemplate})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(c.Path, "vendor", "lib", "lib.go")); err != nil {
		t.Fatalf("the worktree's submodule is not checked out: %v", err)
	}
	if c.Warning != "" {
		t.Errorf("warning %q", c.Warning)
	}
}
