package proc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/loopkit/loopkit/internal/limits"
	"github.com/loopkit/loopkit/internal/lookpath"
)

// How a child that could not start, or ended by a signal, is told.

func lookPath(name, dir string) (string, error) {
	if !strings.Contains(name, "/") {
		return lookpath.Find(name) // never a program the agent put in a relative PATH entry
	}
	full := name
	if !filepath.IsAbs(name) && dir != "" {
		full = filepath.Join(dir, name)
	}
	fi, err := os.Stat(full)
	if err != nil {
		return "", err
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return "", &fs.PathError{Op: "exec", Path: name, Err: syscall.EACCES}
	}
	return name, nil
}

func startFailure(res *Result, spec Spec, err error) *Result {
	res.Ended = time.Now()
	res.ExitCode = -1
	res.StatusCode = 127
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.ENOEXEC) {
		res.StatusCode = 126
		res.Err = fmt.Errorf("cannot execute %s: %v", spec.Args[0], unwrapPath(err))
		if why := startShebang(spec); why != "" { // a BOM before its #!
			res.Err = fmt.Errorf("cannot execute %s: %s", spec.Args[0], why)
		}
		res.NotFound = true
	} else {
		res.Err = fmt.Errorf("command not found: %s", spec.Args[0])
		if hint := limits.Hint(err); hint != "" { // fork's EAGAIN: the process limit, say
			res.Err = &startError{fmt.Sprintf("cannot start %s: %v: %s", spec.Args[0], unwrapPath(err), hint), err}
		} else if !errors.Is(err, exec.ErrNotFound) && !errors.Is(err, fs.ErrNotExist) {
			res.Err = fmt.Errorf("cannot start %s: %v", spec.Args[0], unwrapPath(err))
		} else {
			res.NotFound = true
			if why := startShebang(spec); why != "" { // there, but its #! line fails: not "not found"
				res.Err = fmt.Errorf("cannot start %s: %s", spec.Args[0], why)
			}
		}
	}
	// The spool files still exist (empty) so a record that names them is true.
	for _, p := range []string{spec.StdoutPath, spec.StderrPath} {
		if p != "" {
			if f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE, 0o600); err == nil {
				f.Close()
			}
		}
	}
	return res
}

// startShebang is lookpath.Shebang's answer for the program spec names,
// found as lookPath finds it.
func startShebang(spec Spec) string {
	path, err := lookPath(spec.Args[0], spec.Dir)
	if err != nil {
		return ""
	}
	if !filepath.IsAbs(path) && spec.Dir != "" {
		path = filepath.Join(spec.Dir, path)
	}
	return lookpath.Shebang(path)
}

// startError is a start a limit refused; it wraps the start's error, so
// the hint (cli.DiskHint) names the limit again for the driver.
type startError struct {
	msg string
	err error
}

func (e *startError) Error() string { return e.msg }
func (e *startError) Unwrap() error { return e.err }

// StartLimited says the command could not start for want of a file or a
// process (ulimit -n, ulimit -u, pids.max): the machine's limit, which a
// resume gets past, not a command that is not there (127) and never will.
func (r *Result) StartLimited() bool {
	var se *startError
	return r.PID == 0 && errors.As(r.Err, &se)
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}

// signalName is the signal's name as kill -l gives it (SIGXFSZ), or its
// number when it has none.
func signalName(s syscall.Signal) string {
	if n := unix.SignalName(s); n != "" {
		return n
	}
	return fmt.Sprintf("signal %d", int(s))
}

// killedBy is the error of a command sig killed, naming the limit whose
// signal it is and the fix: from its CPU time and the kernel's count of
// out-of-memory kills (limits.OOMKills) as it started.
func killedBy(sig syscall.Signal, st *os.ProcessState, ooms int64) error {
	name := signalName(sig)
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.CoreDump() {
		name += " (core dumped)" // as shells say: the core file may be in the work tree, a change of the step's
	}
	if why := limits.Why(sig, st.UserTime()+st.SystemTime(), ooms); why != "" {
		return fmt.Errorf("killed by %s: %s", name, why)
	}
	return fmt.Errorf("killed by %s", name)
}

// CutByFileSize says which of the command's streams stopped at the file
// size limit, with the fix; "" when none did, or its SIGXFSZ said so.
func (r *Result) CutByFileSize() string {
	if r.Signal == "SIGXFSZ" {
		return ""
	}
	var cut []string
	if limits.AtFileSize(r.StdoutBytes) {
		cut = append(cut, "stdout")
	}
	if limits.AtFileSize(r.StderrBytes) {
		cut = append(cut, "stderr")
	}
	if len(cut) == 0 {
		return ""
	}
	return fmt.Sprintf("its %s stopped at %s: what it wrote after is lost; raise it (ulimit -f unlimited)", strings.Join(cut, " and "), limits.FileSize())
}
