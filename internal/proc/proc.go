// Package proc runs child commands the way loopkit needs them run: in their
// own process group, with a timeout that kills the whole group, signals
// forwarded, and output spooled to files with bounded memory.
package proc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/loopkit/loopkit/internal/limits"
)

// Spec says what to run and how to capture it.
type Spec struct {
	Args []string
	Dir  string
	Env  []string // nil: ChildEnv
	// Stdin feeds the child; nil means /dev/null.
	Stdin io.Reader
	// Timeout kills the group after this long; 0 means none.
	Timeout time.Duration
	// Grace is how long a signalled group has before SIGKILL (default 1s).
	Grace time.Duration
	// StdoutPath and StderrPath are spool files the streams go to, byte-exact.
	StdoutPath, StderrPath string
	// Tee, when set, also receives both streams live.
	Tee io.Writer
	// StdoutTee, when set, also receives stdout alone, live (a parser).
	StdoutTee io.Writer
	// InlineCap is how many bytes of each stream's end the result keeps.
	InlineCap int
	// ParentDeath kills the child when this process dies (Linux: Pdeathsig;
	// elsewhere a watcher process, see parentwatch.go).
	ParentDeath bool
	// OnStart is called with the child's pid (= its process group id).
	OnStart func(pid int)
	// Activity, when set, sees every line of both streams. With it,
	// IdleTimeout kills the group after that long without a progress line,
	// and AfterResultGrace kills it that long after a result line that
	// nothing followed (an agent that does not exit once done).
	Activity         Activity
	IdleTimeout      time.Duration
	AfterResultGrace time.Duration
	// Stop, when closed, stops the group as a timeout does (SIGTERM, then
	// SIGKILL after Grace): the caller saw in its output that waiting longer
	// cannot help (a refused key the agent keeps retrying).
	Stop <-chan struct{}
}

// Result is what happened to the child.
type Result struct {
	// ExitCode is the child's own exit code, or -1 when it did not exit by
	// itself (timeout, signal, could not start).
	ExitCode int
	TimedOut bool
	// IdleTimedOut is set (with TimedOut) when the group was killed for
	// making no progress for IdleTimeout.
	IdleTimedOut bool
	// KilledAfterResult is set when the group was killed for still running
	// AfterResultGrace after its result line; the work was done, so
	// StatusCode is 0.
	KilledAfterResult bool
	// Stopped is set when Spec.Stop stopped the group; StatusCode is 1.
	Stopped bool
	// Signal names the signal that ended the child or that we forwarded to it.
	Signal string
	// Err describes why the child did not exit by itself.
	Err error
	// StatusCode is the status a wrapping command should exit with (124 on
	// timeout, 127/126 when it could not start, 128+n for signal n).
	StatusCode               int
	Stdout, Stderr           []byte // the ends of the streams (InlineCap each)
	StdoutBytes, StderrBytes int64
	StdoutTrunc, StderrTrunc bool
	// StrayWriter is set when a process that left the group (a setsid
	// daemon) may still write a spool file after the child ended: keep
	// exactly StdoutBytes and StderrBytes of it, never the file as it grows.
	StrayWriter bool
	// ForksRefused, when set, says the process limit refused forks while
	// the command ran, with the fix: its exit status (bash's 254) does not.
	ForksRefused   string
	Started, Ended time.Time
	PID            int
	// NotFound: the program could not start because it is missing or
	// may not be executed (not a limit of processes or files, which pass).
	NotFound bool
}

// Group is the child's process group (its pid: Run starts it in a session
// of its own), 0 when it did not start; nil-safe.
func (r *Result) Group() int {
	if r == nil {
		return 0
	}
	return r.PID
}

// Duration is the child's wall-clock time.
func (r *Result) Duration() time.Duration { return r.Ended.Sub(r.Started) }

// Run starts the command and waits for it. SIGINT, SIGTERM, SIGHUP and
// SIGQUIT sent to this process are forwarded to the child's group while
// it runs.
func Run(spec Spec) (*Result, error) {
	if len(spec.Args) == 0 {
		return nil, errors.New("no command given")
	}
	if spec.Grace <= 0 {
		spec.Grace = time.Second
	}
	res := &Result{ExitCode: -1, Started: time.Now()}
	path, err := lookPath(spec.Args[0], spec.Dir)
	if err != nil {
		return startFailure(res, spec, err), nil
	}
	if spec.Env == nil {
		spec.Env = ChildEnv()
	}
	cmd := &exec.Cmd{Path: path, Args: spec.Args, Dir: spec.Dir, Env: spec.Env}
	// A session of its own: a process group to stop, and no controlling
	// terminal, through which the agent could push keys into the person's
	// shell (TIOCSTI) or be stopped reading it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if spec.ParentDeath {
		if err := setParentDeath(cmd); err != nil {
			return startFailure(res, spec, err), nil
		}
	}
	var tee io.Writer
	if spec.Tee != nil {
		tee = &bestEffort{w: spec.Tee} // a failing live copy never blocks the capture
	}
	outTee := tee
	if spec.StdoutTee != nil {
		outTee = spec.StdoutTee
		if tee != nil {
			outTee = io.MultiWriter(tee, spec.StdoutTee)
		}
	}
	errTee := tee
	var wt *watch
	if spec.Activity != nil {
		wt = newWatch(spec.Activity)
		outTee = joinWriters(outTee, &lines{w: wt})
		errTee = joinWriters(tee, &lines{w: wt})
	}
	outs, err := newCapture(spec.StdoutPath, outTee, spec.InlineCap, true)
	if err != nil {
		return nil, err
	}
	defer outs.close()
	errs, err := newCapture(spec.StderrPath, errTee, spec.InlineCap, false)
	if err != nil {
		return nil, err
	}
	defer errs.close()
	cmd.Stdout, cmd.Stderr = outs.childSide(), errs.childSide()
	if spec.Stdin != nil {
		cmd.Stdin = spec.Stdin
	}

	sigs := make(chan os.Signal, 4)
	NotifyStop(sigs)
	defer signal.Stop(sigs)

	// Pdeathsig fires when the thread that forked exits, so the starting
	// goroutine keeps its thread until the child is reaped.
	type waited struct{ err error }
	started := make(chan error, 1)
	done := make(chan waited, 1)
	ooms := limits.OOMKills() // an increase by its end may name a SIGKILL
	forks := limits.CountForks()
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		done <- waited{cmd.Wait()}
	}()
	if err := <-started; err != nil {
		outs.close()
		errs.close()
		return startFailure(res, spec, err), nil
	}
	res.Started = time.Now()
	res.PID = cmd.Process.Pid
	pgid := cmd.Process.Pid
	outs.startCopy()
	errs.startCopy()
	if spec.OnStart != nil {
		spec.OnStart(pgid)
	}
	defer relayStop(pgid)()

	var timeout <-chan time.Time
	if spec.Timeout > 0 {
		t := time.NewTimer(spec.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	var tick <-chan time.Time
	if wt != nil && (spec.IdleTimeout > 0 || spec.AfterResultGrace > 0) {
		t := time.NewTicker(guardTick(spec.IdleTimeout, spec.AfterResultGrace))
		defer t.Stop()
		tick = t.C
	}
	var reap <-chan time.Time // adopted leftovers that exited: no zombies piling up
	if adopting() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		reap = t.C
	}
	var kill <-chan time.Time
	var forwarded os.Signal
	var w waited
	guarded := ""
	outFailed, errFailed := outs.spoolFailed(), errs.spoolFailed()
loop:
	for {
		select {
		case w = <-done:
			break loop
		case <-tick:
			if guarded = wt.guard(spec.IdleTimeout, spec.AfterResultGrace); guarded != "" {
				tick = nil
				res.TimedOut = guarded == killIdle
				res.IdleTimedOut = res.TimedOut
				res.KilledAfterResult = guarded == killAfterResult
				syscall.Kill(-pgid, syscall.SIGTERM)
				kill = time.After(spec.Grace)
			}
		case <-spec.Stop:
			spec.Stop = nil
			if kill == nil {
				res.Stopped, tick = true, nil
				syscall.Kill(-pgid, syscall.SIGTERM)
				kill = time.After(spec.Grace)
			}
		case <-outFailed:
			outFailed = nil
			spoolStop(pgid, &kill, spec.Grace)
		case <-errFailed:
			errFailed = nil
			spoolStop(pgid, &kill, spec.Grace)
		case <-timeout:
			res.TimedOut = true
			timeout = nil
			syscall.Kill(-pgid, syscall.SIGTERM)
			kill = time.After(spec.Grace)
		case s := <-sigs:
			forwarded = s
			syscall.Kill(-pgid, s.(syscall.Signal))
			if kill == nil {
				kill = time.After(spec.Grace)
			}
		case <-kill:
			syscall.Kill(-pgid, syscall.SIGKILL)
			kill = nil
		case <-reap:
			reapOrphans(pgid)
		}
	}
	// Nothing of the group outlives the command: background children would
	// hold pipes open and leak into the next iteration.
	syscall.Kill(-pgid, syscall.SIGKILL)
	res.Ended = time.Now()
	outs.wait(spec.Grace)
	errs.wait(spec.Grace)

	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	res.ForksRefused = forks.Refused()
	switch {
	case res.IdleTimedOut:
		res.ExitCode, res.StatusCode = -1, 124
		res.Err = fmt.Errorf("no progress for %s (idle timeout): killed", spec.IdleTimeout)
		if ws.Signaled() {
			res.Signal = signalName(ws.Signal())
		}
	case res.KilledAfterResult:
		res.ExitCode, res.StatusCode = -1, 0
		res.Err = fmt.Errorf("still running %s after its result line: killed", spec.AfterResultGrace)
		if ws.Signaled() {
			res.Signal = signalName(ws.Signal())
		}
	case res.Stopped:
		res.ExitCode, res.StatusCode = -1, 1 // the caller says why
		if ws.Signaled() {
			res.Signal = signalName(ws.Signal())
		}
	case res.TimedOut:
		res.ExitCode, res.StatusCode = -1, 124
		res.Err = fmt.Errorf("timed out after %s", spec.Timeout)
		if ws.Signaled() {
			res.Signal = signalName(ws.Signal())
		}
	case forwarded != nil:
		sig := forwarded.(syscall.Signal)
		res.Signal = signalName(sig)
		res.StatusCode = 128 + int(sig)
		res.Err = fmt.Errorf("interrupted by %s", res.Signal)
	case ws.Signaled():
		res.Signal = signalName(ws.Signal())
		res.StatusCode = 128 + int(ws.Signal())
		res.Err = killedBy(ws.Signal(), cmd.ProcessState, ooms)
	case w.err != nil && !ws.Exited():
		res.Err = w.err
		res.StatusCode = 1
	default:
		res.ExitCode = ws.ExitStatus()
		res.StatusCode = res.ExitCode
	}
	if err := outs.finish(res, true); err != nil {
		return nil, err
	}
	if err := errs.finish(res, false); err != nil {
		return nil, err
	}
	outs.close()
	errs.close()
	res.StrayWriter = openForWrite(spec.StdoutPath) || openForWrite(spec.StderrPath)
	return res, nil
}

// spoolStop stops the group once its output cannot be kept: a step whose
// spool file failed is lost, so its agent should spend no more. Run then
// returns the spool's error.
func spoolStop(pgid int, kill *<-chan time.Time, grace time.Duration) {
	syscall.Kill(-pgid, syscall.SIGTERM)
	if *kill == nil {
		*kill = time.After(grace)
	}
}

// guardTick is how often the idle and after-result guards look: often
// enough to act within a few percent of the shorter one, at most 1s.
func guardTick(durations ...time.Duration) time.Duration {
	tick := time.Second
	for _, d := range durations {
		if d > 0 {
			tick = min(tick, max(d/20, 10*time.Millisecond))
		}
	}
	return tick
}

// joinWriters is a MultiWriter of the writers that are not nil.
func joinWriters(ws ...io.Writer) io.Writer {
	var out []io.Writer
	for _, w := range ws {
		if w != nil {
			out = append(out, w)
		}
	}
	if len(out) == 1 {
		return out[0]
	}
	return io.MultiWriter(out...)
}

// lookPath finds the program as a shell would; a name with a slash is taken
// relative to dir, as exec.Cmd does with it.
