// Package gitrun is the one way loopkit runs git, with one policy for
// every call: no hooks, no pager, no prompt, no optional locks, no
// external diff or textconv, no git status run inside a submodule (whose config
// nothing checks), and none of the commands a repository's own
// config names unless the person trusted that config (see Trust). The
// agent can write the workspace's .git/config; git would run what it
// names (core.fsmonitor, clean filters) under loopkit's calls.
package gitrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/loopkit/loopkit/internal/lookpath"
)

// policy goes before every subcommand.
var policy = []string{
	"--no-pager",
	"-c", "core.hooksPath=" + os.DevNull,
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
	// a file is changed when git's default stat check says so: the
	// repository's config could have git trust size and mtime alone, which
	// a writer puts back, and a change would be missing from a snapshot
	"-c", "core.checkStat=default",
	"-c", "core.trustctime=true",
	"-c", "core.ignoreStat=false",
	// nor by a cache whose word git takes for what changed: an fsmonitor
	// hook (even one a trusted config names: it lives in the workspace)
	// or an untracked cache, both answerable by what the agent wrote
	"-c", "core.fsmonitor=false",
	"-c", "core.untrackedCache=false",
	// a patch loopkit keeps has git's three lines of context whatever the
	// person's diff.context: git apply refuses hunks with none (-U0)
	// unless told --unidiff-zero. Config, not -U3, which implies a patch
	"-c", "diff.context=3",
}

// policyEnv: never ask anyone anything, never refresh an index loopkit
// only reads (git status would rewrite the user's), and git's messages in
// English whatever the person's locale: loopkit reads some of them (a
// full disk, dubious ownership) and shows the rest within its own.
var policyEnv = []string{"GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "GIT_EDITOR=true", "GIT_ASKPASS=true", "LC_ALL=C"}

// located are the variables a caller's git exports to the commands it
// runs (a hook, git rebase -x, git --git-dir, a pre-receive quarantine)
// to say which repository, work tree, index, objects and refs it works
// on: git's own list (git rev-parse --local-env-vars, less its config
// entries, which are the person's), GIT_NAMESPACE and
// GIT_QUARANTINE_PATH. loopkit's git finds the repository from the
// directory alone, as a resume from another shell does, and a call into a
// private store never reaches the caller's index or objects. Every
// loopkit command unsets them at start (Unlocate), so what it runs (the
// agent, the validation, hooks) sees the same repository.
var located = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_IMPLICIT_WORK_TREE",
	"GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_QUARANTINE_PATH",
	"GIT_GRAFT_FILE", "GIT_SHALLOW_FILE", "GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE",
	"GIT_NAMESPACE", "GIT_PREFIX", "GIT_INTERNAL_SUPER_PREFIX"}

// Unlocate removes located from this process's environment: a run is the
// repository's around its folder, the same on a resume from another shell.
func Unlocate() {
	for _, k := range located {
		os.Unsetenv(k)
	}
}

// environ is this process's environment less located, for every git.
func environ() []string {
	return slices.DeleteFunc(os.Environ(), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return slices.Contains(located, k)
	})
}

// abort ends every git this process runs, running or to come (Abort);
// made on first use, as nothing is built at start.
var abort = sync.OnceValues(func() (context.Context, context.CancelFunc) {
	return context.WithCancel(context.Background())
})

// aborted is the context every git runs under.
func aborted() context.Context { ctx, _ := abort(); return ctx }

// Abort kills the git processes this process is running and fails every
// later one. A git can block for good on what the agent leaves in the
// work tree (a FIFO where git reads a .gitignore or a config include),
// and a process that ignores signals so as to finish its work (the
// driver's holder recording an iteration) is cut this way instead.
func Abort() { _, cancel := abort(); cancel() }

// Aborted reports whether Abort was called: this process runs no more git.
func Aborted() bool { return aborted().Err() != nil }

// Cmd is one git invocation.
type Cmd struct {
	Dir    string   // -C Dir, when set
	Env    []string // more environment (GIT_DIR, GIT_INDEX_FILE, ...)
	Config []string // more -c settings, "key=value"
	Stdin  io.Reader
	Stdout io.Writer // nil: Run returns stdout
	// Group runs git in a process group of its own: a Ctrl-C meant for
	// the caller must not cut it in half.
	Group bool
}

// Git runs git in dir and returns its stdout.
func Git(dir string, args ...string) ([]byte, error) { return Cmd{Dir: dir}.Run(args...) }

// Command is the exec.Cmd for git args under the policy.
func (c Cmd) Command(args ...string) *exec.Cmd {
	full := append([]string{}, policy...)
	if c.Dir != "" {
		full = append([]string{"-C", c.Dir}, full...)
	}
	for _, kv := range c.Config {
		full = append(full, "-c", kv)
	}
	if len(args) > 0 && (args[0] == "diff" || args[0] == "log" || args[0] == "show") {
		// a diff driver is a command too, and .gitattributes picks it; the
		// person's config may colour and reprefix a diff (color.diff=always,
		// diff.noprefix, diff.submodule=log: a gitlink as a "Submodule"
		// line git apply skips), and a patch loopkit keeps must stay one git
		// applies
		args = append([]string{args[0], "--no-ext-diff", "--no-textconv", "--no-color", "--src-prefix=a/", "--dst-prefix=b/", "--submodule=short"}, args[1:]...)
	}
	if len(args) > 0 && (args[0] == "diff" || args[0] == "status") {
		// a submodule is dirty when a git status run in it says so, under
		// its own config, which no hash covers: its HEAD is enough
		args = append([]string{args[0], "--ignore-submodules=dirty"}, args[1:]...)
	}
	cmd := exec.CommandContext(aborted(), lookpath.Command("git"), append(full, args...)...)
	cmd.Env = append(append(environ(), policyEnv...), c.Env...)
	if !slices.ContainsFunc(c.Env, func(e string) bool { return strings.HasPrefix(e, "GIT_DIR=") }) {
		// loopkit's own git directories are checked by their owner
		cmd.Env = append(cmd.Env, guard(c.Dir)...)
	}
	cmd.Stdin = c.Stdin
	if c.Group {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	}
	return cmd
}

// Run runs git and returns its stdout (or streams it to c.Stdout); the
// error is one line naming the subcommand and git's first words.
func (c Cmd) Run(args ...string) ([]byte, error) {
	cmd := c.Command(args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	if c.Stdout != nil {
		cmd.Stdout = c.Stdout
	}
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if aborted().Err() != nil {
			return stdout.Bytes(), fmt.Errorf("git %s: stopped (past its time, or the run was stopped)", strings.Join(args, " "))
		}
		msg := stderr.Bytes()
		if len(bytes.TrimSpace(msg)) == 0 {
			msg = stdout.Bytes()
		}
		err = Error(args, err, msg)
		if de, ok := err.(*diskError); ok {
			de.where = c.writes()
		}
		return stdout.Bytes(), err
	}
	return stdout.Bytes(), nil
}

// writes is where git writes: the objects or git directory the
// environment names, else the work tree. git's "unable to create
// temporary file" names no path, and the fix depends on that file system.
func (c Cmd) writes() string {
	for _, k := range []string{"GIT_OBJECT_DIRECTORY=", "GIT_DIR=", "GIT_INDEX_FILE="} {
		for _, kv := range c.Env {
			if v, ok := strings.CutPrefix(kv, k); ok && v != "" {
				return v
			}
		}
	}
	return c.Dir
}

// Error is git's failure as one line. When git says the disk refused a
// write (its strerror of EIO, ENOSPC, EDQUOT, EROFS, EFBIG) the error wraps that
// errno, so a caller tells a full disk from a repository git cannot read.
func Error(args []string, err error, stderr []byte) error {
	msg := strings.Join(strings.Fields(strings.ReplaceAll(strings.TrimSpace(string(stderr)), "\n", " ; ")), " ")
	e := fmt.Errorf("git %s: %w", strings.Join(args, " "), err) // a start's errno (EMFILE, EAGAIN) stays
	// a git that never started said nothing: no dangling ": "
	if msg != "" {
		e = fmt.Errorf("%w: %s", e, msg)
	}
	// killed writing past ulimit -f, before it could say so
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGXFSZ {
			return &diskError{err: e, errno: syscall.EFBIG}
		}
	}
	low := strings.ToLower(msg)
	for _, errno := range []syscall.Errno{syscall.ENOSPC, syscall.EIO, syscall.EDQUOT, syscall.EROFS, syscall.EFBIG} {
		if strings.Contains(low, errno.Error()) {
			return &diskError{err: e, errno: errno}
		}
	}
	return e
}

// diskError is git's failure on a write the disk refused.
type diskError struct {
	err   error
	errno syscall.Errno
	where string // Cmd.writes, when known
}

func (e *diskError) Error() string { return e.err.Error() }

// Where is the folder git was writing in ("" when unknown): its file
// system is the one that refused (cli's hint statfs's it).
func (e *diskError) Where() string { return e.where }
func (e *diskError) Unwrap() error { return e.errno }
