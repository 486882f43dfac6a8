package loopkit_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// stubCommands makes a BIN of shell stand-ins for the commands the driver
// and scripts/manpages run (a man page, the driver's usage and version),
// and returns it: no Go build.
func stubCommands(t *testing.T, dir, says string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	stub := "#!/bin/sh\ncase $1 in --man) echo .TH STUB 1 ;; usage) echo 'usage: loop run' ;; --version) echo '" + says + "' ;; esac\n"
	for _, c := range []string{"loop-validate", "loop-record", "loop-step", "loop-view", "loop-drive", "loop-progress", "loop-clean", "loop-tui", "loop-export"} {
		if err := os.WriteFile(filepath.Join(dir, c), []byte(stub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// install runs scripts/install in cwd with env, the stubs as the commands.
func install(t *testing.T, cwd, bin string, env ...string) (string, error) {
	t.Helper()
	root, _ := os.Getwd()
	cmd := exec.Command("bash", filepath.Join(root, "scripts/install"), "loop-validate", "loop-record", "loop-step", "loop-view", "loop-drive")
	cmd.Dir = cwd
	cmd.Env = append(os.Environ(), append([]string{"BIN=" + bin, "DESTDIR="}, env...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func runLoop(t *testing.T, path, dir string, env ...string) string {
	t.Helper()
	cmd := exec.Command(path, "--version")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append([]string{"LOOP_BIN="}, env...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("%s --version: %v\n%s", path, err, out)
	}
	return string(out)
}

// DESTDIR, a packager's staging folder, was ignored (PREFIX=/opt/loopkit
// went into /opt); a relative PREFIX landed in the current directory, as
// did one with its ~ as typed (PREFIX=~/.local: zsh, fish and sh leave it
// in a make argument), in a folder named ~. The installed driver finds its
// own commands before an older loop-* on PATH.
func TestInstallPrefix(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	bin := stubCommands(t, filepath.Join(tmp, "build"), "installed")
	old := stubCommands(t, filepath.Join(tmp, "old"), "older")
	cwd, home := filepath.Join(tmp, "checkout"), filepath.Join(tmp, "home")
	for _, d := range []string{cwd, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	if out, err := install(t, cwd, bin, "PREFIX=~/.local", "HOME="+home); err != nil {
		t.Fatalf("PREFIX=~/.local: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(cwd, "~")); err == nil {
		t.Error("PREFIX=~/.local made a folder named ~ in the current directory")
	}
	loop := filepath.Join(home, ".local/bin/loop")
	if out := runLoop(t, loop, tmp, "PATH="+old+":"+filepath.Dir(loop)+":"+os.Getenv("PATH")); !strings.Contains(out, "installed") {
		t.Errorf("the installed loop ran another loop-drive:\n%s", out)
	}

	stage, prefix := filepath.Join(tmp, "stage"), filepath.Join(tmp, "opt/loopkit")
	if out, err := install(t, cwd, bin, "PREFIX="+prefix, "DESTDIR="+stage); err != nil || !strings.Contains(out, "installed into "+stage+prefix) {
		t.Fatalf("DESTDIR: %v\n%s", err, out)
	}
	if _, err := os.Stat(prefix); err == nil {
		t.Error("DESTDIR was ignored: the files went into PREFIX")
	}
	for _, f := range []string{"share/man/man1/loop.1", "share/loopkit/loop.d/common.sh", "bin/loop-drive"} {
		if _, err := os.Stat(filepath.Join(stage+prefix, f)); err != nil {
			t.Error(err)
		}
	}
	runLoop(t, filepath.Join(stage+prefix, "bin/loop"), tmp) // the staged tree works where it is

	out, err := install(t, cwd, bin, "PREFIX=rel")
	if err == nil || strings.Count(strings.TrimSpace(out), "\n") > 0 || !strings.Contains(out, "PREFIX must be an absolute path") {
		t.Errorf("a relative PREFIX: %v\n%s", err, out)
	}
	if ents, _ := os.ReadDir(cwd); len(ents) > 0 {
		t.Errorf("install left %s in the current directory", ents[0].Name())
	}
}

// A driver copied out of its tree (cp bin/loop /usr/local/bin, from a
// release archive) printed six lines of bash errors: one line now says
// what it misses and what to do. A link to it works from anywhere.
func TestDriverCopied(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	src, err := os.ReadFile("scripts/loop")
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(tmp, "loop")
	if err := os.WriteFile(copied, src, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(copied, "--version").CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 70 || strings.Count(string(out), "\n") != 1 || !strings.Contains(string(out), "no loop.d beside "+copied) {
		t.Errorf("a copied driver: %v\n%s", err, out)
	}

	root, _ := os.Getwd()
	link := filepath.Join(tmp, "link")
	if err := os.Symlink(filepath.Join(root, "scripts/loop"), link); err != nil {
		t.Fatal(err)
	}
	bin := stubCommands(t, filepath.Join(tmp, "bin"), "linked")
	if out := runLoop(t, link, tmp, "LOOP_BIN="+bin); !strings.Contains(out, "linked") {
		t.Errorf("a linked driver:\n%s", out)
	}
}

// make install PREFIX="$HOME/my tools" (or a HOME with a space, the
// default PREFIX's) ran "tools" as the command, with PREFIX=$HOME/my.
// The builds are GO=true: the stand-ins are the commands.
func TestMakeInstallQuotes(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not found")
	}
	tmp := t.TempDir()
	bin := stubCommands(t, filepath.Join(tmp, "build"), "installed")
	home := filepath.Join(tmp, "it's home")
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "PREFIX" && k != "DESTDIR" && k != "HOME" {
			env = append(env, kv)
		}
	}
	for _, tc := range []struct{ args, loop string }{
		{"PREFIX=" + filepath.Join(tmp, "my tools"), filepath.Join(tmp, "my tools/bin/loop")},
		{"PREFIX=~/.local", filepath.Join(home, ".local/bin/loop")},
		{"", filepath.Join(home, ".local/bin/loop")}, // the default PREFIX
	} {
		cmd := exec.Command("make", "--no-print-directory", "install", "GO=true", "BIN="+bin)
		if tc.args != "" {
			cmd.Args = append(cmd.Args, tc.args)
		}
		cmd.Env = append(env, "HOME="+home)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("make install %s: %v\n%s", tc.args, err, out)
			continue
		}
		if out := runLoop(t, tc.loop, tmp); !strings.Contains(out, "installed") {
			t.Errorf("make install %s: %s --version:\n%s", tc.args, tc.loop, out)
		}
	}
}

// make uninstall removes what make install put under the same PREFIX and
// DESTDIR, and nothing else: a file of the person's beside them stays.
func TestUninstall(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	bin := stubCommands(t, filepath.Join(tmp, "build"), "installed")
	stage, prefix := filepath.Join(tmp, "stage"), "/opt/my loopkit"
	root := stage + prefix
	if err := os.MkdirAll(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	theirs := filepath.Join(root, "bin/their-tool")
	if err := os.WriteFile(theirs, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := install(t, tmp, bin, "PREFIX="+prefix, "DESTDIR="+stage); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(root, "share/fish/vendor_completions.d/loop.fish")); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	cmd := exec.Command("make", "-s", "uninstall", "PREFIX="+prefix, "DESTDIR="+stage)
	cmd.Dir = wd
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "removed from "+root) {
		t.Fatalf("make uninstall: %v\n%s", err, out)
	}
	var left []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			left = append(left, strings.TrimPrefix(p, root+"/"))
		}
		return nil
	})
	if len(left) != 1 || left[0] != "bin/their-tool" {
		t.Errorf("after uninstall: %q, want only bin/their-tool", left)
	}
	if _, err := os.Stat(filepath.Join(root, "share/loopkit")); err == nil {
		t.Error("share/loopkit is still there")
	}
}

// `make && sudo make install`: root's PATH (sudo's secure_path) has no go,
// and make install built again, as root: it failed, or left bin/ root's.
// Under sudo it installs what was built, and says in one line when
// nothing was.
func TestSudoInstallNoBuild(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root: make install under sudo")
	}
	t.Parallel()
	tmp := t.TempDir()
	bin := stubCommands(t, filepath.Join(tmp, "build"), "installed")
	makePath, err := exec.LookPath("make")
	if err != nil {
		t.Skip("no make")
	}
	wd, _ := os.Getwd()
	run := func(bin string) (string, error) {
		cmd := exec.Command(makePath, "-s", "install", "BIN="+bin, "PREFIX="+filepath.Join(tmp, "prefix"))
		cmd.Dir = wd
		// sudo's environment: its own user, a PATH without go
		cmd.Env = append(os.Environ(), "SUDO_USER=someone", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "DESTDIR=")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run(bin); err != nil || !strings.Contains(out, "installed into") {
		t.Fatalf("sudo make install: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(tmp, "prefix/bin/loop-drive")); err != nil {
		t.Error(err)
	}
	out, err := run(filepath.Join(tmp, "empty"))
	if err == nil || !strings.Contains(out, "is not built: run make as yourself first") {
		t.Errorf("nothing built: %v\n%s", err, out)
	}
}
