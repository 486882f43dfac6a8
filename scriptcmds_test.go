package loopkit_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func setupScript(env *testscript.Env) error {
	for k, v := range map[string]string{
		"GIT_AUTHOR_NAME": "loopkit test", "GIT_AUTHOR_EMAIL": "test@loopkit.invalid",
		"GIT_COMMITTER_NAME": "loopkit test", "GIT_COMMITTER_EMAIL": "test@loopkit.invalid",
		"GIT_CONFIG_NOSYSTEM": "1", "NO_COLOR": "1",
	} {
		env.Setenv(k, v)
	}
	env.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	env.Values[scriptT{}] = env.T() // for a command that skips the script (locale)
	// The driver's tests run scripts/loop against the commands built into
	// this test binary (first on PATH), and run `go test` in demo workspaces.
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	if !shellPlain(root) {
		link := env.WorkDir + ".root"
		if err := os.Symlink(root, link); err != nil {
			return err
		}
		env.Defer(func() { os.Remove(link) })
		root = link
	}
	env.Setenv("LOOPKIT_ROOT", root)
	env.Setenv("LOOP_BIN", strings.Split(env.Getenv("PATH"), string(os.PathListSeparator))[0])
	// loopkit's own directories are outside every workspace, $WORK too
	// (its index key, say, is no file of the work tree's)
	xdg := env.WorkDir + ".xdg"
	env.Setenv("XDG_RUNTIME_DIR", filepath.Join(xdg, "run"))
	env.Setenv("XDG_STATE_HOME", filepath.Join(xdg, "state"))
	env.Defer(func() { os.RemoveAll(xdg) })
	for k, v := range goEnv() {
		env.Setenv(k, v)
	}
	// three rounds: SIGHUP, SIGTERM and SIGKILL once each (make crash: 200)
	rounds := os.Getenv("LOOPKIT_CRASH_ROUNDS")
	if rounds == "" {
		rounds = "3"
	}
	env.Setenv("CRASH_ROUNDS", rounds)
	env.Setenv("GOTOOLCHAIN", "local")
	env.Setenv("GOFLAGS", "")
	// Whatever the script started dies with it, passed or failed: a failed
	// spec's background loop must not hold the suite until go test's
	// timeout (testscript interrupts only its direct child, then waits).
	work := env.WorkDir
	env.Defer(func() { killMine(work) })
	return nil
}

// The specs write $WORK and $LOOPKIT_ROOT into shell command lines bare,
// as people type them: a path a shell splits (a TMPDIR or a checkout with
// a space) ran them elsewhere, and some wrote outside $WORK. Such a TMPDIR
// gives way to /tmp; such a checkout is reached through a link beside
// $WORK. (TestScripts/demo_paths runs the driver under such paths.)
func shellPlain(p string) bool { return !strings.ContainsAny(p, " \t\n'\"\\$`*?[]{}()<>|&;#~!") }

func plainTempDir() {
	for _, v := range []string{"TMPDIR", "GOTMPDIR"} {
		if d := os.Getenv(v); d != "" && !shellPlain(d) {
			if fi, err := os.Stat("/tmp"); err == nil && fi.IsDir() {
				os.Setenv(v, "/tmp")
			}
		}
	}
}

// Deadline is how long a spec waits for an event (waitfor, alive, the
// shell polls): generous, since a loaded machine (a load of 30 on 2 cores)
// starts a driver in seconds; a passing spec never waits it out.
const Deadline = 60 * time.Second

// killMine SIGKILLs every process that carries the script's WORK=work (all
// it started, setsid daemons included), until none is left.
func killMine(work string) {
	for deadline := time.Now().Add(Deadline); time.Now().Before(deadline); {
		pids := findMine(work, "")
		if len(pids) == 0 {
			return
		}
		for _, p := range pids {
			if pid, err := strconv.Atoi(filepath.Base(p)); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
}

var goEnv = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		return m
	}
	for i, v := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		m[[]string{"GOCACHE", "GOMODCACHE", "GOPATH"}[i]] = v
	}
	return m
})

var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"jsonvalid": cmdJSONValid,
	"bigfile":   cmdBigFile,
	"alive":     cmdAlive,
	"treehash":  cmdTreeHash,
	"waitfor":   cmdWaitFor,
	"exits":     cmdExits,
	"locale":    cmdLocale,
}

// exits CODE PROG ARGS...: runs PROG like exec and checks its exact exit
// status; stdout and stderr are kept for the next stdout/stderr checks.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		got = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("exits: %v", err)
	}
	if (got == want) == neg {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

// jsonvalid FILE...: every file is one JSON value (.json) or one JSON value
// per complete line (.jsonl).
func cmdJSONValid(ts *testscript.TestScript, neg bool, args []string) {
	for _, name := range args {
		data, err := os.ReadFile(ts.MkAbs(name))
		ts.Check(err)
		ok := true
		if strings.HasSuffix(name, ".jsonl") {
			for _, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
				ok = ok && json.Valid(line)
			}
		} else {
			ok = json.Valid(data)
		}
		if ok == neg {
			ts.Fatalf("jsonvalid %s: valid=%v", name, ok)
		}
	}
}

// bigfile NAME SIZE: writes SIZE bytes of mixed content: text, invalid
// UTF-8 and NUL bytes, so byte-exact capture can be checked.
func cmdBigFile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: bigfile NAME SIZE")
	}
	size, err := strconv.Atoi(args[1])
	ts.Check(err)
	pattern := []byte("line of text é 日本 \xff\xfe invalid \x00 nul \x1b[31mred\x1b[0m\n")
	buf := make([]byte, 0, size)
	for len(buf) < size {
		buf = append(buf, pattern...)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), buf[:size], 0o644))
}

// alive PATTERN: some live (non-zombie) process of this script has PATTERN
// in its command line. A process is the script's when its environment holds
// the script's own WORK=$WORK (every command it starts inherits it): the
// same command line in another test or build running at once is not ours.
// Both wait up to Deadline for the answer they look for: `alive` for a
// process just started in the background to exec, `! alive` for one a
// SIGKILL already reached to be gone (the kernel ends it asynchronously,
// slower on a loaded machine).
//
// A killed process gives up its memory, and with it the command line and
// environment findMine reads, before its files: its locks are held a moment
// after it no longer reads as ours. So `! alive` also waits for every
// process in that state (an empty command line, not a kernel thread, not yet
// a zombie) to be gone: a view run next finds the killed run's locks free.
func cmdAlive(ts *testscript.TestScript, neg bool, args []string) {
	busy := func() bool {
		found := findMine(ts.Getenv("WORK"), args[0])
		if neg {
			return len(found) > 0 || exiting() > 0
		}
		return len(found) == 0
	}
	for deadline := time.Now().Add(Deadline); busy() && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if found := findMine(ts.Getenv("WORK"), args[0]); (len(found) > 0) == neg {
		ts.Fatalf("alive %q: found=%q", args[0], found)
	}
}

// exiting counts the processes past releasing their memory but not yet
// zombies: an empty command line, and no PF_KTHREAD flag (kernel threads
// have none either).
func exiting() int {
	const pfKthread = 0x00200000
	procs, _ := filepath.Glob("/proc/[0-9]*")
	n := 0
	for _, p := range procs {
		cmdline, err := os.ReadFile(filepath.Join(p, "cmdline"))
		if err != nil || len(cmdline) > 0 {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(p, "stat"))
		i := bytes.LastIndexByte(stat, ')')
		if err != nil || i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:])) // state, ppid, pgrp, session, tty, tpgid, flags
		if len(f) < 7 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if flags, err := strconv.ParseUint(f[6], 10, 64); err == nil && flags&pfKthread == 0 {
			n++
		}
	}
	return n
}

// findMine returns the /proc entries of the live processes whose command
// line has pattern and whose environment has WORK=work.
func findMine(work, pattern string) []string {
	mine := []byte("WORK=" + work)
	procs, _ := filepath.Glob("/proc/[0-9]*")
	var found []string
	for _, p := range procs {
		cmdline, err := os.ReadFile(filepath.Join(p, "cmdline"))
		if err != nil || !bytes.Contains(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}), []byte(pattern)) {
			continue
		}
		environ, err := os.ReadFile(filepath.Join(p, "environ"))
		if err != nil || !slices.ContainsFunc(bytes.Split(environ, []byte{0}), func(e []byte) bool { return bytes.Equal(e, mine) }) {
			continue
		}
		// gone since, or a zombie: not alive
		stat, err := os.ReadFile(filepath.Join(p, "stat"))
		i := bytes.LastIndexByte(stat, ')')
		if err != nil || i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' {
			continue
		}
		found = append(found, p)
	}
	return found
}

// treehash DIR FILE: writes a listing of every file under DIR with its mode,
// size and content hash, to compare a store before and after a command.
func cmdTreeHash(ts *testscript.TestScript, neg bool, args []string) {
	root := ts.MkAbs(args[0])
	var b strings.Builder
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		b.WriteString(rel + " " + fi.Mode().String())
		if fi.Mode().IsRegular() {
			data, _ := os.ReadFile(p)
			b.WriteString(" " + strconv.Itoa(len(data)) + " " + strconv.FormatUint(fnv(data), 16))
		}
		b.WriteString("\n")
		return nil
	})
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o644))
}

func fnv(data []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range data {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// waitfor FILE [SECONDS]: waits until FILE exists, SECONDS or Deadline,
// whichever is longer.
func cmdWaitFor(ts *testscript.TestScript, neg bool, args []string) {
	limit := Deadline
	if len(args) > 1 {
		s, err := strconv.Atoi(args[1])
		ts.Check(err)
		limit = max(limit, time.Duration(s)*time.Second)
	}
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(ts.MkAbs(args[0])); err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("waitfor %s: not there after %s", args[0], limit)
}

// scriptCondition: [pidns] holds where `unshare --pid --fork --mount-proc`
// can run a command as the first process of a PID namespace (as root, or
// where user namespaces are allowed): the driver as a container's pid 1;
// [mountns] where `unshare --mount` can bind-mount a folder.
func scriptCondition(cond string) (bool, error) {
	switch cond {
	case "root": // can give a file away (chown), as a sudo's folders are
		return os.Geteuid() == 0, nil
	case "mountns": // can bind-mount a folder in a mount namespace of its own
		mountnsOnce.Do(func() {
			d, err := os.MkdirTemp("", "mountns")
			if err != nil {
				return
			}
			defer os.RemoveAll(d)
			mountnsOK = exec.Command("unshare", "--mount", "mount", "--bind", d, d).Run() == nil
		})
		return mountnsOK, nil
	case "pidns":
		pidnsOnce.Do(func() {
			pidnsOK = exec.Command("unshare", "--pid", "--fork", "--mount-proc", "true").Run() == nil
		})
		return pidnsOK, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

var (
	pidnsOnce   sync.Once
	pidnsOK     bool
	mountnsOnce sync.Once
	mountnsOK   bool
)
