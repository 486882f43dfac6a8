package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/loopkit/loopkit/internal/exitcode"
)

// Where the kernel cannot kill a child when its parent dies (Pdeathsig is
// Linux's alone), the command runs under a watcher: this same binary,
// started with WatchEnv set to the parent's pid. The watcher starts the
// real command in its own process group (which the parent made), waits for
// it and exits the same way; if its parent goes away first (SIGKILL, a
// crash), it SIGKILLs the whole group, itself included.

// WatchEnv is the environment variable that turns a loopkit command into
// the watcher; its value is the pid to watch.
const WatchEnv = "LOOPKIT_WATCH_PARENT"

// watchInterval is how often the watcher looks at its parent.
const watchInterval = 100 * time.Millisecond

// underWatcher rewrites cmd to run under the watcher.
func underWatcher(cmd *exec.Cmd) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("parent-death watcher: %w", err)
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(env, WatchEnv+"="+strconv.Itoa(os.Getpid()))
	cmd.Args = append([]string{cmd.Args[0], cmd.Path}, cmd.Args...)
	cmd.Path = exe
	return nil
}

// MaybeWatch runs the watcher and exits when WatchEnv is set; otherwise it
// returns at once. Every command that starts a child calls it first.
func MaybeWatch() {
	v := os.Getenv(WatchEnv)
	if v == "" {
		return
	}
	parent, err := strconv.Atoi(v)
	if err != nil || len(os.Args) < 3 {
		fmt.Fprintf(os.Stderr, "%s=%q: not a watcher invocation\n", WatchEnv, v)
		os.Exit(exitcode.NoExec)
	}
	os.Unsetenv(WatchEnv)
	os.Exit(watchParent(parent, os.Args[1], os.Args[2:]))
}

func watchParent(parent int, path string, args []string) int {
	// Signals the parent forwards to the group reach the command directly;
	// the watcher only outlives them to report the command's status.
	// (Caught, not ignored: an ignored signal would stay ignored in the child;
	// one ignored when started stays so, as nohup asks: NotifyStop.)
	sigs := make(chan os.Signal, 4)
	NotifyStop(sigs)
	signal.Notify(sigs, syscall.SIGPIPE)
	cmd := &exec.Cmd{Path: path, Args: args, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return exitcode.NoExec
	}
	go func() {
		for range time.Tick(watchInterval) {
			if os.Getppid() != parent {
				syscall.Kill(0, syscall.SIGKILL) // our group: the command and us
			}
		}
	}()
	err := cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			// Die of the same signal, so the parent sees what the command did.
			signal.Reset(ws.Signal())
			syscall.Kill(os.Getpid(), ws.Signal())
			time.Sleep(time.Second)
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	if err != nil {
		return exitcode.NoExec
	}
	return 0
}
