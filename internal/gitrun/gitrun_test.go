package gitrun

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// repo is a work tree whose *.txt files go through the filter "mine",
// with a script that logs each time git runs it.
func repo(t *testing.T) (dir, log string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(root, "global"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("XDG_STATE_HOME", filepath.Join(root, "state"))
	os.WriteFile(filepath.Join(root, "global"), nil, 0o644)
	dir, log = filepath.Join(root, "ws"), filepath.Join(root, "ran")
	script := filepath.Join(root, "cmd.sh")
	os.WriteFile(script, []byte("echo \"$1\" >> '"+log+"'\n[ \"$1\" = fsmonitor ] && exit 1\ncat\n"), 0o755)
	os.Mkdir(dir, 0o755)
	for _, args := range [][]string{{"init", "-q"}, {"config", "user.name", "t"}, {"config", "user.email", "t@t"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("*.txt filter=mine\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	return dir, log
}

func setConfig(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("git", append([]string{"config"}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("git config %v: %v %s", args, err, out)
	}
}

func ran(log string) []string {
	data, _ := os.ReadFile(log)
	return strings.Fields(string(data))
}

func reset() {
	trust.Lock()
	trust.on, trust.hash, trust.overrides, trust.neutral = false, "", nil, nil
	trust.commands, trust.digests = "", nil
	trust.Unlock()
}

// A filter and an fsmonitor planted in .git/config after the run started
// run under no git call of loopkit's, and are named once.
func TestPlantedConfigRunsNothing(t *testing.T) {
	defer reset()
	dir, log := repo(t)
	script := filepath.Join(filepath.Dir(log), "cmd.sh")
	hash, err := ConfigHash(dir)
	if err != nil || !strings.HasPrefix(hash, "sha256:") {
		t.Fatalf("hash %q, %v", hash, err)
	}
	Trust(hash)
	if _, err := Git(dir, "add", "-A"); err != nil {
		t.Fatal(err)
	}
	if got := Neutralised(); got != nil {
		t.Errorf("untouched config: neutralised %v", got)
	}
	// the agent plants its commands
	setConfig(t, "-f", filepath.Join(dir, ".git", "config"), "filter.mine.clean", "sh '"+script+"' clean")
	setConfig(t, "-f", filepath.Join(dir, ".git", "config"), "filter.mine.required", "true")
	setConfig(t, "-f", filepath.Join(dir, ".git", "config"), "core.fsmonitor", "sh '"+script+"' fsmonitor")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("changed\n"), 0o644)
	for _, args := range [][]string{{"status", "--porcelain"}, {"add", "-A"}, {"diff", "--cached"}, {"commit", "-qm", "x"}} {
		if _, err := Git(dir, args...); err != nil {
			t.Fatal(err)
		}
	}
	if got := ran(log); len(got) > 0 {
		t.Errorf("planted commands ran: %v", got)
	}
	if got := Neutralised(); !slices.Equal(got, []string{"core.fsmonitor", "filter.mine.clean"}) {
		t.Errorf("neutralised %v", got)
	}
	// without the guard (as before) git runs them
	cmd := exec.Command("git", "-C", dir, "add", "--renormalize", ".")
	cmd.Run()
	if got := ran(log); !slices.Contains(got, "clean") {
		t.Errorf("the planted filter does not run even unguarded (%v): the test proves nothing", got)
	}
}

// The person's filter, in the repository's config before the run or in
// the global config, keeps working; a planted one does not replace it.
func TestPersonsFiltersKeepWorking(t *testing.T) {
	defer reset()
	dir, log := repo(t)
	script := filepath.Join(filepath.Dir(log), "cmd.sh")
	setConfig(t, "-f", filepath.Join(dir, ".git", "config"), "filter.mine.clean", "sh '"+script+"' local")
	hash, _ := ConfigHash(dir)
	Trust(hash)
	if _, err := Git(dir, "add", "-A"); err != nil {
		t.Fatal(err)
	}
	if got := ran(log); !slices.Equal(got, []string{"local"}) {
		t.Errorf("the person's own filter: ran %v, want local", got)
	}
	os.Remove(log)
	setConfig(t, "--global", "filter.mine.clean", "sh '"+script+"' global")
	setConfig(t, "-f", filepath.Join(dir, ".git", "config"), "filter.mine.clean", "sh '"+script+"' planted")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("changed\n"), 0o644)
	if _, err := Git(dir, "add", "-A"); err != nil {
		t.Fatal(err)
	}
	if got := ran(log); !slices.Equal(got, []string{"global"}) {
		t.Errorf("after the plant: ran %v, want the global filter alone", got)
	}
}

// The person's own git beside a run rewrites .git/config (git remote add,
// git push -u): their filter keeps running under the run's git, since the
// commands the config names are the same; a filter changed after that is
// neutralised as before.
func TestPersonsConfigChangeKeepsFilters(t *testing.T) {
	defer reset()
	dir, log := repo(t)
	script := filepath.Join(filepath.Dir(log), "cmd.sh")
	config := filepath.Join(dir, ".git", "config")
	setConfig(t, "-f", config, "filter.mine.clean", "sh '"+script+"' local")
	run := filepath.Join(t.TempDir(), "r1")
	if err := Remember(run, dir); err != nil {
		t.Fatal(err)
	}
	TrustRun(run)
	setConfig(t, "-f", config, "remote.origin.url", "/elsewhere")
	setConfig(t, "-f", config, "branch.main.remote", "origin")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("changed\n"), 0o644)
	if _, err := Git(dir, "add", "-A"); err != nil {
		t.Fatal(err)
	}
	if got := ran(log); !slices.Equal(got, []string{"local"}) {
		t.Errorf("after git remote add: ran %v, want the person's filter", got)
	}
	if got := Neutralised(); got != nil {
		t.Errorf("after git remote add: neutralised %v", got)
	}
	os.Remove(log)
	setConfig(t, "-f", config, "filter.mine.clean", "sh '"+script+"' planted")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("again\n"), 0o644)
	if _, err := Git(dir, "add", "-A"); err != nil {
		t.Fatal(err)
	}
	if got := ran(log); len(got) > 0 {
		t.Errorf("a changed filter ran: %v", got)
	}
	if got := Neutralised(); !slices.Equal(got, []string{"filter.mine.clean"}) {
		t.Errorf("after the plant: neutralised %v", got)
	}
}

func TestExecutableKeys(t *testing.T) {
	for key, want := range map[string]bool{
		"core.fsmonitor": true, "filter.a=b.c.clean": true, "filter.x.required": false, "diff.x.textconv": true,
		"credential.https://h.helper": true, "core.editor": true, "pager.log": true, "user.name": false,
		"remote.origin.uploadpack": true, "remote.origin.url": false, "merge.x.driver": true, "core.bare": false,
		"gpg.ssh.defaultkeycommand": true, "gpg.ssh.program": true, "gpg.ssh.allowedsignersfile": false, "interactive.difffilter": true,
	} {
		if got := executable(key); got != want {
			t.Errorf("executable(%q) = %v, want %v", key, got, want)
		}
	}
}

// With extensions.worktreeConfig set by the person, a fsmonitor planted
// in config.worktree changes the hash and is neutralised too.
func TestWorktreeConfigCounts(t *testing.T) {
	defer reset()
	dir, log := repo(t)
	script := filepath.Join(filepath.Dir(log), "cmd.sh")
	setConfig(t, "-f", filepath.Join(dir, ".git", "config"), "extensions.worktreeConfig", "true")
	hash, _ := ConfigHash(dir)
	Trust(hash)
	setConfig(t, "-f", filepath.Join(dir, ".git", "config.worktree"), "core.fsmonitor", "sh '"+script+"' fsmonitor")
	if again, _ := ConfigHash(dir); again == hash {
		t.Fatal("config.worktree is not in the hash")
	}
	if _, err := Git(dir, "status", "--porcelain"); err != nil {
		t.Fatal(err)
	}
	if got := ran(log); len(got) > 0 {
		t.Errorf("planted fsmonitor ran: %v", got)
	}
	if got := Neutralised(); !slices.Equal(got, []string{"core.fsmonitor"}) {
		t.Errorf("neutralised %v", got)
	}
}

func TestRecorded(t *testing.T) {
	defer reset()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir, _ := repo(t)
	run := filepath.Join(t.TempDir(), "r1")
	if TrustRun(run); Recorded() {
		t.Error("a run never remembered is recorded")
	}
	if err := Remember(run, dir); err != nil {
		t.Fatal(err)
	}
	if TrustRun(run); !Recorded() {
		t.Error("a remembered run is not recorded")
	}
}

// git's own words for a write the disk refused carry the errno, so the
// recorder fails the record instead of keeping an iteration without its
// tree as if the repository were unreadable.
func TestErrorDiskRefused(t *testing.T) {
	for stderr, want := range map[string]error{
		"error: unable to create temporary file: No space left on device\nfatal: git-write-tree: error building trees": syscall.ENOSPC,
		"error: unable to write file objects/ab/cd: Input/output error":                                                syscall.EIO,
		"fatal: Unable to create '/x/index.lock': Read-only file system":                                               syscall.EROFS,
		"error: unable to write loose object file: File too large":                                                     syscall.EFBIG,
		"fatal: not a git repository":                                                                                  nil,
	} {
		err := Error([]string{"write-tree"}, errors.New("exit status 128"), []byte(stderr))
		if want == nil && errors.Is(err, syscall.ENOSPC) || want != nil && !errors.Is(err, want) {
			t.Errorf("%q: %v, want %v wrapped", stderr, err, want)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: not one line: %q", stderr, err)
		}
	}
}

// A submodule's own config (the agent can write it; no hash covers it)
// runs under none of loopkit's git calls: git status and git diff would
// run `git status` in the submodule to see if it is dirty.
func TestSubmoduleConfigRunsNothing(t *testing.T) {
	defer reset()
	dir, log := repo(t)
	script := filepath.Join(filepath.Dir(log), "cmd.sh")
	nested := filepath.Join(dir, "nested")
	os.Mkdir(nested, 0o755)
	for _, c := range [][]string{{"-C", dir, "add", "-A"}, {"-C", nested, "init", "-q"}, {"-C", nested, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x"},
		{"-C", dir, "add", "-A"}, {"-C", dir, "commit", "-qm", "nested"}} {
		if out, err := exec.Command("git", c...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", c, err, out)
		}
	}
	setConfig(t, "-f", filepath.Join(nested, ".git", "config"), "core.fsmonitor", "sh '"+script+"' fsmonitor")
	os.WriteFile(filepath.Join(nested, "new.txt"), []byte("n\n"), 0o644)
	hash, _ := ConfigHash(dir)
	Trust(hash)
	for _, args := range [][]string{{"status", "--porcelain"}, {"diff", "HEAD"}} {
		if _, err := Git(dir, args...); err != nil {
			t.Fatal(err)
		}
	}
	if got := ran(log); len(got) > 0 {
		t.Errorf("the submodule's config ran: %v", got)
	}
	exec.Command("git", "-C", dir, "status").Run()
	if got := ran(log); !slices.Contains(got, "fsmonitor") {
		t.Errorf("the planted fsmonitor does not run even unguarded (%v): the test proves nothing", got)
	}
}

// A commit loopkit makes (a merge, a worktree's leftover work) signs when
// the planted config says so; the command that finds an ssh signing key
// is the agent's then, and is not run.
func TestPlantedSigningKeyCommandRunsNothing(t *testing.T) {
	defer reset()
	dir, log := repo(t)
	script := filepath.Join(filepath.Dir(log), "cmd.sh")
	hash, _ := ConfigHash(dir)
	Trust(hash)
	cfg := filepath.Join(dir, ".git", "config")
	setConfig(t, "-f", cfg, "commit.gpgsign", "true")
	setConfig(t, "-f", cfg, "gpg.format", "ssh")
	setConfig(t, "-f", cfg, "gpg.ssh.defaultKeyCommand", "sh '"+script+"' defaultkey")
	if _, err := Git(dir, "add", "-A"); err != nil {
		t.Fatal(err)
	}
	Git(dir, "commit", "-qm", "x") // fails: no key to sign with
	if got := ran(log); len(got) > 0 {
		t.Errorf("planted commands ran: %v", got)
	}
	if got := Neutralised(); !slices.Contains(got, "gpg.ssh.defaultkeycommand") {
		t.Errorf("neutralised %v", got)
	}
}

// core.worktree (or core.bare) planted in .git/config moves git's work
// tree: a snapshot would record another folder, or fail. Under an
// untrusted config loopkit's git keeps the work tree where its .git is.
func TestPlantedWorktreeMovesNothing(t *testing.T) {
	defer reset()
	dir, _ := repo(t)
	elsewhere := t.TempDir()
	os.WriteFile(filepath.Join(elsewhere, "secret"), []byte("s\n"), 0o600)
	hash, _ := ConfigHash(dir)
	Trust(hash)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	for _, kv := range [][2]string{{"core.worktree", elsewhere}, {"core.bare", "true"}} {
		setConfig(t, "-f", filepath.Join(dir, ".git", "config"), kv[0], kv[1])
		for _, d := range []string{dir, sub} {
			out, err := Git(d, "rev-parse", "--show-toplevel")
			if err != nil || strings.TrimSpace(string(out)) != dir {
				t.Fatalf("%s planted, in %s: top %q, %v; want %s", kv[0], d, out, err, dir)
			}
		}
		out, err := Git(dir, "status", "--porcelain", "--untracked-files=all")
		if err != nil || !strings.Contains(string(out), "a.txt") || strings.Contains(string(out), "secret") {
			t.Fatalf("%s planted: status %q, %v", kv[0], out, err)
		}
	}
	if got := Neutralised(); !slices.Contains(got, "core.worktree") || !slices.Contains(got, "core.bare") {
		t.Errorf("neutralised %v", got)
	}
}

// The person's config may name an fsmonitor hook inside the repository
// (git's sample: core.fsmonitor=.git/hooks/fsmonitor-watchman), which the
// agent can rewrite without changing the config; a hook's answer also
// decides which files git add looks at. loopkit's git runs none.
func TestTrustedFsmonitorHookNeverRuns(t *testing.T) {
	defer reset()
	dir, log := repo(t)
	hook := filepath.Join(dir, ".git", "hooks", "fsmon")
	os.MkdirAll(filepath.Dir(hook), 0o755)
	os.WriteFile(hook, []byte("#!/bin/sh\nexit 1\n"), 0o755)
	setConfig(t, "-f", filepath.Join(dir, ".git", "config"), "core.fsmonitor", ".git/hooks/fsmon")
	hash, _ := ConfigHash(dir)
	Trust(hash)
	// the agent rewrites the hook the trusted config names
	os.WriteFile(hook, []byte("#!/bin/sh\necho hook >> '"+log+"'\nexit 1\n"), 0o755)
	for _, args := range [][]string{{"status", "--porcelain"}, {"add", "-A"}} {
		if _, err := Git(dir, args...); err != nil {
			t.Fatal(err)
		}
	}
	if got := ran(log); len(got) > 0 {
		t.Errorf("the rewritten hook ran: %v", got)
	}
	exec.Command("git", "-C", dir, "status").Run()
	if got := ran(log); !slices.Contains(got, "hook") {
		t.Errorf("the hook does not run even under a plain git (%v): the test proves nothing", got)
	}
}

// An excludes file planted through .git/config (`*`) would hide every new
// file from the snapshots, with no line in the work tree to show it.
func TestPlantedExcludesFileHidesNothing(t *testing.T) {
	defer reset()
	dir, _ := repo(t)
	hash, _ := ConfigHash(dir)
	Trust(hash)
	all := filepath.Join(t.TempDir(), "all")
	os.WriteFile(all, []byte("*\n"), 0o644)
	setConfig(t, "-f", filepath.Join(dir, ".git", "config"), "core.excludesFile", all)
	os.WriteFile(filepath.Join(dir, "new.go"), []byte("package x\n"), 0o644)
	out, err := Git(dir, "status", "--porcelain", "--untracked-files=all")
	if err != nil || !strings.Contains(string(out), "new.go") {
		t.Fatalf("status %q, %v: the new file is hidden", out, err)
	}
	if got := Neutralised(); !slices.Contains(got, "core.excludesfile") {
		t.Errorf("neutralised %v", got)
	}
}

// A disk that refuses the write of a run's config hash (full: here a file
// size limit, EFBIG, in a child of the test) leaves nothing in the state
// directory: a half-written <name>.tmp would stay there for good, since
// no later write or clean of that run names it.
func TestRememberRefusedLeavesNothing(t *testing.T) {
	if dir := os.Getenv("LOOPKIT_REMEMBER_CHILD"); dir != "" {
		var lim syscall.Rlimit
		syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim)
		lim.Cur = 8
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
			t.Skipf("setrlimit: %v", err)
		}
		if err := Remember(filepath.Join(t.TempDir(), "r1"), dir); err == nil {
			t.Fatal("remembered past the file size limit without an error")
		}
		return
	}
	dir, _ := repo(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestRememberRefusedLeavesNothing$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "LOOPKIT_REMEMBER_CHILD="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "SKIP") {
		t.Skipf("child skipped:\n%s", out)
	}
	left, _ := filepath.Glob(filepath.Join(os.Getenv("XDG_STATE_HOME"), "loopkit", "git-config", "*"))
	if len(left) > 0 {
		t.Errorf("left in the state directory: %v", left)
	}
}

// A holder killed between Remember's write and its rename leaves
// <name>.tmp in the state directory; no later Remember of that run comes
// (a run is remembered once, as it is made), so Forget, as the run is
// deleted, removes it with the hash: a deleted run leaves nothing there.
func TestForgetRemovesAKilledRemembersTemp(t *testing.T) {
	dir, _ := repo(t)
	runDir := filepath.Join(t.TempDir(), "r1")
	if err := Remember(runDir, dir); err != nil {
		t.Fatal(err)
	}
	path, err := statePath(runDir)
	if err != nil {
		t.Fatal(err)
	}
	// what a kill -9 after os.WriteFile(tmp) and before the rename leaves
	if err := os.WriteFile(path+".tmp", []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Forget(runDir); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(os.Getenv("XDG_STATE_HOME"), "loopkit", "git-config", "*"))
	if len(left) > 0 {
		t.Errorf("left in the state directory after Forget: %v", left)
	}
}

// A git that could not start (no process or file left under a limit)
// keeps the errno, so the recorder and the driver name the limit rather
// than a repository git cannot read.
func TestErrorStartFailure(t *testing.T) {
	for _, start := range []error{
		&os.PathError{Op: "fork/exec", Path: "/usr/bin/git", Err: syscall.EAGAIN},
		os.NewSyscallError("pipe2", syscall.EMFILE),
	} {
		err := Error([]string{"rev-parse"}, start, nil)
		if !errors.Is(err, start.(interface{ Unwrap() error }).Unwrap()) {
			t.Errorf("%v: %v, want its errno wrapped", start, err)
		}
		if strings.HasSuffix(err.Error(), ": ") {
			t.Errorf("%v: %q ends on a dangling colon: git said nothing", start, err)
		}
	}
}

// A git killed by SIGXFSZ (it wrote an object past ulimit -f) is a refused
// write too, not a repository git cannot read.
func TestErrorFileSizeSignal(t *testing.T) {
	cmd := exec.Command("sh", "-c", "kill -XFSZ $$")
	err := Error([]string{"add", "-A"}, cmd.Run(), nil)
	if !errors.Is(err, syscall.EFBIG) {
		t.Fatalf("%v: want EFBIG wrapped", err)
	}
}

// git's "unable to create temporary file" names no path: the refused
// write says where git was writing, so the hint can look at that file
// system (out of inodes, or of bytes).
func TestDiskRefusedSaysWhere(t *testing.T) {
	bin, gitDir := t.TempDir(), t.TempDir()
	fake := "#!/bin/sh\necho 'error: unable to create temporary file: No space left on device' >&2\nexit 128\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	_, err := Cmd{Env: []string{"GIT_DIR=" + gitDir}}.Run("write-tree")
	var where interface{ Where() string }
	if !errors.Is(err, syscall.ENOSPC) || !errors.As(err, &where) || where.Where() != gitDir {
		t.Fatalf("%v: want ENOSPC and where git wrote (%s)", err, gitDir)
	}
}
