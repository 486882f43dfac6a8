package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/charmbracelet/log"
	"golang.org/x/sys/unix"

	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/lazylog"
	"github.com/loopkit/loopkit/internal/safefile"
)

// Version and Commit are set at link time (-X
// github.com/loopkit/loopkit/internal/cli.Version=... and .Commit=...).
var Version, Commit string

// VersionString is the link-time version, else the module version or VCS
// revision from the build info.
func VersionString() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			return v
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				return "devel-" + s.Value[:12]
			}
		}
	}
	return "devel"
}

// Env is what a command runs against: its name, arguments and streams.
// Commands never touch os.Stdout or os.Exit, so tests can build an Env.
type Env struct {
	Name   string
	Args   []string
	Stdin  io.Reader
	Stdout *bufio.Writer
	Stderr io.Writer
	Log    *lazylog.Lazy
	// StdoutFile is the real stdout when it is a file (terminal detection).
	StdoutFile *os.File
	// ErrorFile, when set, receives the one-line error Finish reports, so
	// that the driver can mark its run failed with it (ErrorFileEnv).
	ErrorFile string
	// HelpHides, when set, names the long options a subcommand's --help
	// leaves out: a command whose subcommands share one option struct
	// (loop-record) lists under each only the options it takes.
	HelpHides func(subcommand string) []string
	// helpName is the command and subcommand whose help a usage error
	// points at (Parse sets it when a subcommand was given).
	helpName string
}

// ErrorFileEnv names the file a loopkit command writes its error line to
// when it fails: the driver's, read when it must fail the run. Main takes
// it out of the environment, so no agent or validation inherits it.
const ErrorFileEnv = "LOOPKIT_ERROR_FILE"

// NewEnv builds an Env over the given streams.
func NewEnv(name string, args []string, stdin io.Reader, stdout, stderr io.Writer) *Env {
	e := &Env{Name: name, Args: args, Stdin: stdin, Stdout: bufio.NewWriterSize(stdout, 64<<10), Stderr: stderr}
	if f, ok := stdout.(*os.File); ok {
		e.StdoutFile = f
	}
	e.Log = NewLogger(stderr, name)
	_ = e.SetLogLevel(os.Getenv("LOOP_LOG_LEVEL")) // a bad name is reported by Parse
	return e
}

// SetLogLevel sets the log level by name, in any case; an empty name is
// info, an unknown one keeps the level and is an error.
func (e *Env) SetLogLevel(name string) error {
	if name == "" {
		e.Log.SetLevel(log.InfoLevel)
		return nil
	}
	switch n := strings.ToLower(strings.TrimSpace(name)); n {
	case "debug", "info", "warn", "error":
		lvl, _ := log.ParseLevel(n)
		e.Log.SetLevel(lvl)
		return nil
	}
	return fmt.Errorf("unknown log level %q (want debug, info, warn or error)", name)
}

// VersionLine is what --version prints after the command's name: the
// version (a tag when built from one) and the commit it was built from.
func VersionLine() string {
	v, c := VersionString(), Commit
	if c == "" {
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, s := range bi.Settings {
				if s.Key == "vcs.revision" && len(s.Value) >= 12 {
					c = s.Value[:12]
				}
			}
		}
	}
	if c == "" || strings.Contains(v, c) {
		return v
	}
	return v + " (commit " + c + ")"
}

// Main runs a command against the process's streams and returns its exit
// status. A closed stdout (`| head`) ends the command quietly.
func Main(name string, run func(*Env) error) int {
	// The files unpiped replaces stay reachable until the command ends:
	// unreachable, their cleanups close fds 1 and 2 at a GC, so a
	// long-lived command (the driver's holder) lost the pipe it was
	// started with, and a file opened later could take fd 1.
	defer runtime.KeepAlive([2]*os.File{os.Stdout, os.Stderr})
	os.Stdout, os.Stderr = unpiped(os.Stdout, 1), unpiped(os.Stderr, 2)
	env := NewEnv(name, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	env.ErrorFile = os.Getenv(ErrorFileEnv)
	os.Unsetenv(ErrorFileEnv)
	return env.Finish(run(env))
}

// Finish flushes stdout, reports err on stderr and returns the exit status.
func (e *Env) Finish(err error) int {
	if ferr := e.Stdout.Flush(); ferr != nil && (err == nil || silent(err) && !IsBrokenPipe(ferr)) {
		// a child's status (loop-validate's, loop-step's) must not hide a
		// record that never reached stdout: `> /dev/full` is 1 and a line
		err = ferr
	}
	if err == nil {
		return exitcode.OK
	}
	if IsBrokenPipe(err) {
		var ee *ExitError
		if errors.As(err, &ee) && ee.Err == nil {
			return ee.Code
		}
		return exitcode.OK
	}
	var ee *ExitError
	if errors.As(err, &ee) && ee.Err == nil {
		return ee.Code // the child's own status: nothing to say
	}
	fmt.Fprintf(e.Stderr, "%s: %v\n", e.Name, err)
	if e.ErrorFile != "" {
		if f, ferr := safefile.OpenFile(e.ErrorFile, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600); ferr == nil {
			fmt.Fprintf(f, "%s: %s\n", e.Name, strings.ReplaceAll(err.Error(), "\n", " "))
			hint := DiskHint(err)
			if hint == "" && errors.As(err, &ee) && ee.Code == exitcode.Internal {
				hint = ee.Hint // what a command that cannot go on says to do first
			}
			if hint != "" {
				fmt.Fprintln(f, hint) // the driver's hint: what to do before a resume
			}
			f.Close()
		}
	}
	if errors.As(err, &ee) && ee.Hint != "" {
		fmt.Fprintf(e.Stderr, "hint: %s\n", ee.Hint)
	}
	return Code(err)
}

// silent reports an exit status that says nothing of its own (Silent).
func silent(err error) bool {
	var ee *ExitError
	return errors.As(err, &ee) && ee.Err == nil
}

// unpiped returns a close-on-exec copy of stdout or stderr. Go kills a
// program whose write to fds 1 or 2 meets a closed pipe unless it catches
// SIGPIPE, and catching it costs every start a signal thread; a write to
// the copy returns EPIPE instead, and children still get SIGPIPE's default.
// (fd is given, not f.Fd(), which would make the shared fd blocking.)
func unpiped(f *os.File, fd int) *os.File {
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return f // not open: nothing will be written through it
	}
	return os.NewFile(uintptr(dup), f.Name())
}

// IsBrokenPipe reports a write to a closed pipe.
func IsBrokenPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE)
}

// IsTerminal reports whether the command's stdout is a terminal.
func (e *Env) IsTerminal() bool {
	return IsTerminal(e.StdoutFile)
}

// Color reports whether stdout may be coloured (see ColorFor).
func (e *Env) Color() bool {
	return ColorFor(e.StdoutFile)
}
