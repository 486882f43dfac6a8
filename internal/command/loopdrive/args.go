package loopdrive

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/loopkit/loopkit/internal/agent"
	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/driverargs"
	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/proc"
	"github.com/loopkit/loopkit/internal/procid"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/trust"
	"github.com/loopkit/loopkit/internal/userdir"
)

// holdOptions are what --new and --resume hold a run with, read from the
// driver's own command line.
type holdOptions struct {
	New           bool
	Run           string
	MaxIterations int // --resume: the run's new total, 0 to keep it
	// MaxDuration is --resume's new --max-duration, when HasMaxDuration.
	MaxDuration    runconfig.Duration
	HasMaxDuration bool
	Caps           map[string]string // --resume's new max_cost, max_tokens
	// ConfigFile is the --config/LOOP_CONFIG file read ("" for none):
	// a resume naming another one than its run's keeps it for the next.
	ConfigFile string
	// Settings are the run's, resolved and checked (--resume: from the
	// environment and config, for the queue).
	Settings runconfig.Settings
	PhaseOptions
	// Serve answers the driver's requests on stdin once the run is held.
	Serve bool
	// Driver is the pid the driver gave as its own (0: none given).
	Driver int
}

// driverLine runs --new or --resume on the arguments of `scripts/loop run`
// or `resume`, with the environment and config files read here. Its
// output is the driver's records: a usage error goes to stderr, followed by
// exit=2; help is an out= record, since stdout is the driver's pipe.
func driverLine(env *cli.Env, mode string, args []string) error {
	driver := serving()
	var err error
	switch {
	case driver == 0:
		err = holdLine(env, mode, args, driver)
	case driver == 1 && os.Getppid() != 1:
		// a driver older than this loop-drive set 1 for "on", not its pid
		err = exitRecord(env, &cli.ExitError{Code: exitcode.Internal,
			Err:  errors.New("this loop-drive is newer than the driver (loop) that started it"),
			Hint: "install the driver and the commands from one version together (make install, or make build in a checkout)"})
	default:
		emit(env, "protocol", strconv.Itoa(Protocol))
		err = holdLine(env, mode, args, driver)
	}
	if driver != 0 {
		// The driver reads the records above from a pipe the shell closes
		// once this process is reaped: live until the driver is gone.
		env.Stdout.Flush()
		io.Copy(io.Discard, env.Stdin)
	}
	return err
}

// holdLine is driverLine; serve driver (its pid, 0: none) as RequestsEnv
// asks.
func holdLine(env *cli.Env, mode string, args []string, driver int) error {
	cwd, err := cli.Getwd()
	if err != nil {
		return exitRecord(env, err)
	}
	st, err := store.Resolve(os.Getenv("LOOP_STORE"), cwd)
	if errors.Is(err, store.ErrTilde) { // a bad setting, as a newline there is
		return exitRecord(env, cli.Usagef("%v", err))
	} else if err != nil {
		return exitRecord(env, cli.Failf("%w", err))
	}
	unset := callerUnset()
	// --config FILE (seed 003) is the named config file, over LOOP_CONFIG;
	// the driver's children read it too
	named, given := driverFlag(args, "--config", true)
	if given && named == "" {
		return usageLine(env, mode, errors.New("--config needs a value"))
	}
	if named != "" {
		named, _ = filepath.Abs(named)
		os.Setenv("LOOP_CONFIG", named)
		args = withoutConfig(args)
	}
	if mode == "--resume" && named == "" && os.Getenv("LOOP_CONFIG") == "" {
		// the run's settings came from that file: without it, the keys
		// its commands read (inline_cap_bytes, keep_last, ...) would change
		f, err := startedConfig(st, args)
		if err != nil {
			return exitRecord(env, err)
		}
		if f != "" {
			named = f
			os.Setenv("LOOP_CONFIG", named)
		}
	}
	// a new run obeys the commands of a config file only when the person
	// accepted it as it is (--trust-config accepts it now)
	cfg, read, err := loadConfig(env, st, mode == "--new", mode == "--new" && trustFlag(args))
	if err != nil {
		return exitRecord(env, err)
	}
	src := driverargs.Sources{Getenv: os.Getenv, Config: cfg.Values()}
	// said once per run, here: the commands under the driver say nothing
	cfg.WarnUnknown(env)
	// the keys the commands read for themselves are checked now too
	t, err := cfg.Tools()
	if s := cfg["prices"]; err == nil && t.Prices != "" {
		// read as loop-step reads it at each step (from this directory)
		if _, perr := agent.LoadPrices(t.Prices); perr != nil {
			err = &cli.ConfigError{File: s.File, Line: s.Line, Key: "prices", Msg: perr.Error()}
		}
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "loop: %v\n", err)
		emit(env, "exit", fmt.Sprint(exitcode.Usage))
		return cli.Silent(exitcode.Usage)
	}
	// a new run refused such a file above; a resume, which asks for no
	// acceptance, keeps the clean at its end from deleting by it
	if mode != "--new" {
		if err := trust.Resumed(env, cfg, read); err != nil {
			return exitRecord(env, err)
		}
	}
	opts, err := readLine(mode, args, src)
	var ue *driverargs.UsageError
	var se *runconfig.SettingError
	switch {
	case errors.As(err, &ue) || errors.As(err, &se):
		return usageLine(env, mode, err)
	case err != nil:
		return exitRecord(env, err)
	case opts == nil && !driverargs.Driven(): // help, asked of loop-drive by a person
		_, err := env.Stdout.WriteString(driverargs.Help())
		return err
	case opts == nil: // help
		emit(env, "out", driverargs.Help())
		emit(env, "exit", "0")
		return nil
	}
	if c := os.Getenv("LOOP_CONFIG"); c != "" {
		opts.ConfigFile, _ = filepath.Abs(c) // kept for a resume
		if opts.New {
			opts.Settings.ConfigFile = opts.ConfigFile
		}
	}
	if msg := runconfig.Unkept(st.Root); msg != "" {
		return exitRecord(env, cli.Usagef("store %q: %s: move it, or set LOOP_STORE to another folder", st.Root, msg))
	}
	if dir := placesDir(st, opts); dir != "" {
		if err := checkPlaces(st, dir); err != nil {
			return exitRecord(env, err)
		}
	}
	// Where a run's settings, process record and slots are kept: without
	// them no run goes far, so none is started (a container's user with no
	// home of its own: HOME=/).
	if _, err := userdir.Runtime(); err != nil {
		return exitRecord(env, cli.Failf("%w", err))
	}
	if _, err := userdir.State(); err != nil {
		return exitRecord(env, cli.Failf("%w", err))
	}
	emit(env, "store", st.Root)
	if unset != "" {
		emit(env, "unset", unset)
	}
	if named != "" {
		emit(env, "config", named)
	}
	if fixed := fixConfig(env, st, cfg); fixed != "" {
		emit(env, "runconfig", fixed) // the driver removes it as it exits
		madeForDriver = append(madeForDriver, fixed)
	}
	if tmp := driverTemp(env); tmp != "" {
		emit(env, "tmp", tmp) // and this
		madeForDriver = append(madeForDriver, tmp)
	}
	defer dropMade()
	opts.Serve, opts.Driver = driver != 0, driver
	return hold(env, st, opts)
}

// madeForDriver is what this holder made for its driver (the config copy,
// the temporary folder) until the run is handed to it (the ready record):
// the driver removes them as it exits from driving only.
var madeForDriver []string

// dropMade removes madeForDriver: the run is not the driver's to drive
// (finished, another driver's, its driver gone). Before the exit record,
// on which the driver exits, and this process dies with it.
func dropMade() {
	for _, p := range madeForDriver {
		os.RemoveAll(p)
	}
	madeForDriver = nil
}

// fixConfig keeps cfg, the config read (and checked) as the run starts,
// for every loopkit command of the run, this one included: the agent can
// rewrite .loop/config while the run goes on. "" when it cannot: the
// commands then read the files.
func fixConfig(env *cli.Env, st *store.Store, cfg cli.Config) string {
	dir, err := runtimeSub("configs")
	path := ""
	if err == nil {
		path = filepath.Join(dir, fmt.Sprintf("%d-%d.json", os.Getpid(), time.Now().UnixNano()))
		err = cli.WriteFixed(path, st.ConfigFile(), cfg)
	}
	if err == nil {
		keepHeld(path)
	}
	if err == nil {
		err = os.Setenv(cli.RunConfigEnv, path)
	}
	if err != nil {
		env.Log.Warn("the run's config is not kept: its commands read the config files, which the agent can change", "err", err)
		return ""
	}
	return path
}

// driverTemp makes the driver's temporary folder, which holds a step's
// and a validation's records until they are recorded: in the runtime
// directory, not $TMPDIR, which the agent CLIs' sandboxes let the agent
// write (a FIFO there, fed by a daemon, faked a validation's pass). ""
// when it cannot: the driver makes one in $TMPDIR.
func driverTemp(env *cli.Env) string {
	dir, err := runtimeSub("drivers")
	if err == nil {
		dir, err = os.MkdirTemp(dir, fmt.Sprintf("%d-*", os.Getpid()))
	}
	if err == nil {
		keepHeld(dir)
	}
	if err != nil {
		env.Log.Warn("the driver's records wait in $TMPDIR, which the agent may write", "err", err)
		return ""
	}
	return dir
}

// runtimeSub is userdir.RuntimeSub(name) without what holders now gone
// left in it (the driver removes its own as it exits, unless it was
// killed). A pid names a process of this pid namespace only: a driver in
// another one (a container, `unshare --pid`) sharing the directory may
// look gone from here, so an entry goes only when nobody holds it either
// (see keepHeld), and not in its first minute (before its holder took it).
func runtimeSub(name string) (string, error) {
	dir, err := userdir.RuntimeSub(name)
	if err != nil {
		return "", err
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*-*"))
	for _, n := range names {
		pid, err := strconv.Atoi(strings.SplitN(filepath.Base(n), "-", 2)[0])
		if err == nil && pid > 0 && !procid.Running(pid) && !held(n) {
			os.RemoveAll(n)
		}
	}
	return dir, nil
}

// heldFiles are the entries this process holds: open, so that their
// shared flocks last as long as it does (the kernel drops them when it
// dies; they are not passed on to what it starts).
var heldFiles []*os.File

// keepHeld takes a shared flock on path (a file or a folder) for the life of
// this process: runtimeSub in any process, of any pid namespace, leaves
// it. Best effort: an entry not held is judged by its pid alone.
func keepHeld(path string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB) != nil {
		f.Close()
		return
	}
	heldFiles = append(heldFiles, f)
}

// held says whether path is held by a process (see keepHeld), or is too new
// for its holder to have taken it yet.
func held(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil {
		return false
	}
	if time.Since(fi.ModTime()) < time.Minute {
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil
}

// readLine parses the driver's arguments into holdOptions; nil for help.
func readLine(mode string, args []string, src driverargs.Sources) (*holdOptions, error) {
	opts := &holdOptions{New: mode == "--new"}
	if opts.New {
		r, err := driverargs.ParseRun(args, src)
		if err != nil || r.Help {
			return nil, err
		}
		opts.Settings, opts.Run, opts.Spec, opts.Plan = r.Settings, os.Getenv("LOOP_RUN_ID"), r.Spec, r.Plan
	} else {
		r, err := driverargs.ParseResume(args, src)
		if err != nil || r.Help {
			return nil, err
		}
		opts.Settings, opts.Run, opts.MaxIterations = r.Settings, r.Run, r.MaxIterations
		opts.MaxDuration, opts.HasMaxDuration, opts.Caps = r.MaxDuration, r.HasMaxDuration, r.Caps
	}
	if opts.Run != "" {
		if err := store.ValidRunID(opts.Run); err != nil {
			return nil, cli.Usagef("%v", err)
		}
	}
	return opts, nil
}

// emit writes one NUL-terminated KEY=VALUE record for the driver and
// flushes, since the driver waits for it.
func emit(env *cli.Env, k, v string) {
	switch k {
	case "exit":
		dropMade()
	case "ready":
		madeForDriver = nil // the driver's now
	}
	// settings refuse a NUL (runconfig); should one come from elsewhere it
	// must not end the record and begin one of its own (agent=, tmp=)
	v = strings.ReplaceAll(v, "\x00", "\uFFFD")
	fmt.Fprintf(env.Stdout, "%s=%s\x00", k, v)
	env.Stdout.Flush()
}

// exitRecord reports err, then tells the driver which status to exit with:
// in that order, since this process dies with the driver. A failure (a
// store it cannot use, a run's file it cannot read) is the driver's 70:
// its 1 says the run is stuck, which a script would take it for.
func exitRecord(env *cli.Env, err error) error {
	code := cli.Code(err)
	if code == exitcode.Failure {
		code = exitcode.Internal
	}
	var ee *cli.ExitError
	if hint := cli.DiskHint(err); hint != "" && (!errors.As(err, &ee) || ee.Hint == "") {
		err = &cli.ExitError{Code: code, Err: err, Hint: hint + ", then try again"}
	}
	env.Finish(err)
	emit(env, "exit", fmt.Sprint(code))
	return cli.Silent(code)
}

// callerUnset lists LOOP_STORE and LOOP_CONFIG when the driver's caller
// did not set them (or loopkit did: resume --interrupted's drivers): the
// driver sets them for loopkit's own commands, and what the agent and the
// validation run gets neither (proc.ChildEnv).
func callerUnset() string {
	var names []string
	for _, k := range []string{"LOOP_STORE", "LOOP_CONFIG"} {
		_, set := os.LookupEnv(k)
		if !set || slices.Contains(strings.Fields(os.Getenv(proc.UnsetEnv)), k) {
			names = append(names, k)
		}
	}
	return strings.Join(names, " ")
}
