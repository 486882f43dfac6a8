package loopkit_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// makeIn runs make ARGS in dir with stdin and env, without the caller's
// GIT_* (the repositories the test made are the nearest) or CGO_ENABLED.
func makeIn(t *testing.T, dir, stdin string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("make", append([]string{"--no-print-directory"}, args...)...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "CGO_ENABLED=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@loopkit.invalid"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// makeTree is a new folder holding the checkout's FILES, to run make in;
// the test is skipped without the programs it needs.
func makeTree(t *testing.T, needs []string, files ...string) string {
	t.Helper()
	for _, p := range append([]string{"make"}, needs...) {
		if _, err := exec.LookPath(p); err != nil {
			t.Skip(p, "not found")
		}
	}
	tree := t.TempDir()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(tree, f), string(data))
	}
	return tree
}

// writeFile writes text to path (executable: scripts are run with bash
// or exec alike), making its folders.
func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}

// A source tarball unpacked inside another repository (a monorepo's
// vendor/, a dotfiles home) is no clone: it was built as that repository's
// tag (loop --version said v9.9.9), and make vet's gofmt, given no tracked
// file, read stdin (a terminal's: make test hung).
func TestMakeInAnotherRepository(t *testing.T) {
	t.Parallel()
	files := makeTree(t, []string{"git", "gofmt"}, "Makefile", ".archive-version") // not filled in, as in a clone
	outer := t.TempDir()
	tree := filepath.Join(outer, "vendor", "loopkit")
	if err := os.MkdirAll(filepath.Dir(tree), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(files, tree); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) { writeFile(t, filepath.Join(tree, name), text) }
	write("a/a.go", "package a\n")
	write("examples/fleet/f.go", "package fleet\n")
	gitIn(t, outer, "init", "-q")
	gitIn(t, outer, "commit", "-q", "--allow-empty", "-m", "outer")
	gitIn(t, outer, "tag", "v9.9.9")

	out, err := makeIn(t, tree, "", nil, "-n", "build")
	if err != nil || !strings.Contains(out, "cli.Version=devel ") || strings.Contains(out, "v9.9.9") {
		t.Errorf("make -n build inside another repository: %v\n%s", err, out)
	}
	// go vet is not the point here: GO=true
	if out, err := makeIn(t, tree, "package x\nfunc  f( ){}\n", nil, "vet", "GO=true"); err != nil {
		t.Errorf("make vet read stdin, or checked what is not here: %v\n%s", err, out)
	}
	write("b/b.go", "package  b\n")
	if out, err := makeIn(t, tree, "", nil, "vet", "GO=true"); err == nil || !strings.Contains(out, "b/b.go") {
		t.Errorf("make vet passed an unformatted file: %v\n%s", err, out)
	}

	// a clone is described by its own tags
	gitIn(t, tree, "init", "-q")
	gitIn(t, tree, "add", "Makefile", ".archive-version", "a/a.go", "examples")
	gitIn(t, tree, "commit", "-qm", "loopkit")
	gitIn(t, tree, "tag", "v1.2.3")
	out, err = makeIn(t, tree, "", nil, "-n", "build")
	if err != nil || !strings.Contains(out, "cli.Version=v1.2.3 ") {
		t.Errorf("make -n build in a clone: %v\n%s", err, out)
	}
	if out, err := makeIn(t, tree, "", nil, "vet", "GO=true"); err != nil {
		t.Errorf("make vet in a clone looked past its tracked files: %v\n%s", err, out)
	}
}

// make demo with a LOOP_BIN exported (docs/driver.md: another build's
// commands) built this checkout's commands, then ran the others.
func TestMakeDemoRunsItsBuild(t *testing.T) {
	t.Parallel()
	tree := makeTree(t, nil, "Makefile")
	writeFile(t, filepath.Join(tree, "scripts/demo"), "echo \"demo runs $LOOP_BIN\"\n")
	writeFile(t, filepath.Join(tree, "scripts/tmpexec"), "")
	out, err := makeIn(t, tree, "", []string{"LOOP_BIN=" + filepath.Join(tree, "older")}, "demo", "GO=true")
	if want := "demo runs " + filepath.Join(tree, "bin") + "\n"; err != nil || !strings.Contains(out, want) {
		t.Errorf("make demo: %v\n%s\nwant %q", err, out, want)
	}
}

// TMPDIR on a noexec tmpfs (hardened CI): go test starts the tests it
// builds there and the tests start their stand-ins there; make test
// failed every package with "fork/exec ...: permission denied", make demo
// went stuck after six iterations without a word why. Now one line says
// so first. The tmpfs needs a mount namespace of its own (unshare -rm).
func TestMakeNoexecTmp(t *testing.T) {
	t.Parallel()
	tree := makeTree(t, []string{"unshare"}, "Makefile", "scripts/tmpexec")
	if out, err := exec.Command("unshare", "-rm", "true").CombinedOutput(); err != nil {
		t.Skipf("no mount namespace here (unshare -rm: %v %s)", err, out)
	}
	mnt := filepath.Join(tree, "mnt")
	for _, d := range []string{mnt, filepath.Join(tree, "examples/fleet")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(tree, "scripts/demo"), "")
	// GO=true: the checks and the recipes, not the builds and the tests
	run := func(opts, target string, env ...string) (string, error) {
		cmd := exec.Command("unshare", "-rm", "sh", "-c", `mount -t tmpfs -o "$1" tmpfs "$2" && cd "$3" && exec make --no-print-directory "$4" GO=true`,
			"_", opts, mnt, tree, target)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, target := range []string{"test", "demo"} {
		out, err := run("noexec", target, "TMPDIR="+mnt, "GOTMPDIR=")
		if err == nil || !strings.Contains(out, "make "+target+": programs cannot run from "+mnt+" (mounted noexec?)") || strings.Contains(out, "true test") {
			t.Errorf("make %s with TMPDIR on a noexec mount: %v\n%s", target, err, out)
		}
	}
	// go's builds in GOTMPDIR are not the tests' stand-ins in TMPDIR
	if out, err := run("noexec", "test", "TMPDIR="+mnt, "GOTMPDIR="+tree); err == nil || !strings.Contains(out, "cannot run from "+mnt) {
		t.Errorf("make test with TMPDIR on a noexec mount, GOTMPDIR elsewhere: %v\n%s", err, out)
	}
	if out, err := run("noexec", "demo", "TMPDIR="+mnt, "GOTMPDIR="+tree); err != nil {
		t.Errorf("make demo with GOTMPDIR where programs run: %v\n%s", err, out)
	}
	if out, err := run("exec", "test", "TMPDIR="+mnt, "GOTMPDIR="); err != nil || strings.Contains(out, "cannot run") {
		t.Errorf("make test with TMPDIR where programs run: %v\n%s", err, out)
	}
}

// A source tarball (GitHub's download of a tag, git archive) has no .git:
// its commands said "devel" whatever release it was. git archive writes
// the tag and commit into .archive-version (export-subst).
func TestMakeInTarball(t *testing.T) {
	t.Parallel()
	clone := makeTree(t, []string{"git", "tar"}, "Makefile", ".archive-version", ".gitattributes")
	tarball := filepath.Join(t.TempDir(), "tarball")
	gitIn(t, clone, "init", "-q")
	gitIn(t, clone, "add", "-A")
	gitIn(t, clone, "commit", "-qm", "release")
	gitIn(t, clone, "tag", "v1.2.3")
	unpack := func(rev string) string {
		t.Helper()
		os.RemoveAll(tarball)
		if err := os.Mkdir(tarball, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("sh", "-c", `git -C "$1" archive "$2" | tar -x -C "$3"`, "_", clone, rev, tarball)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git archive | tar -x: %v\n%s", err, out)
		}
		out, err := makeIn(t, tarball, "", nil, "-n", "build")
		if err != nil {
			t.Fatalf("make -n build: %v\n%s", err, out)
		}
		return out
	}
	commit := func() string {
		out, err := exec.Command("git", "-C", clone, "rev-parse", "--short=12", "HEAD").Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	if out, c := unpack("v1.2.3"), commit(); !strings.Contains(out, "cli.Version=v1.2.3 -X github.com/loopkit/loopkit/internal/cli.Commit="+c+"'") {
		t.Errorf("the tarball of v1.2.3 (commit %s):\n%s", c, out)
	}
	gitIn(t, clone, "commit", "-q", "--allow-empty", "-m", "after")
	if out, c := unpack("HEAD"), commit(); !strings.Contains(out, "cli.Version=v1.2.3-1-g") || !strings.Contains(out, "cli.Commit="+c+"'") {
		t.Errorf("the tarball of a commit after v1.2.3 (%s):\n%s", c, out)
	}
}

// go's answer to GOFLAGS=-race under make is "-race requires cgo; enable
// cgo by setting CGO_ENABLED=1", and make's recipes set CGO_ENABLED=0 over
// it: the fix it named did nothing. A caller's CGO_ENABLED is kept.
func TestMakeKeepsCgo(t *testing.T) {
	t.Parallel()
	tree := makeTree(t, nil, "Makefile")
	for _, tc := range []struct {
		env  []string
		want string
	}{{nil, "CGO_ENABLED=0 "}, {[]string{"CGO_ENABLED="}, "CGO_ENABLED=0 "}, {[]string{"CGO_ENABLED=1"}, "CGO_ENABLED=1 "}} {
		out, err := makeIn(t, tree, "", tc.env, "-n", "test")
		if err != nil || strings.Count(out, tc.want+"go build") != 1 || strings.Count(out, tc.want+"go test") != 2 {
			t.Errorf("make -n test with %q: %v\n%s\nwant %s", tc.env, err, out, tc.want)
		}
	}
}
