// Package cli holds the conventions every loopkit command shares: flag
// parsing with help on stdout, config files, logging on stderr, exit codes.
package cli

import (
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/loopkit/loopkit/internal/exitcode"
	"github.com/loopkit/loopkit/internal/limits"
)

// ExitError carries the process exit code with an error.
type ExitError struct {
	Code int
	Err  error
	// Hint, when set, is printed on a second line ("hint: ...").
	Hint string
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// Usagef is a usage error (exit 2).
func Usagef(format string, a ...any) error {
	return &ExitError{Code: exitcode.Usage, Err: fmt.Errorf(format, a...)}
}

// Failf is an operational failure (exit 1), unless it wraps (%w) an error
// that carries its own code: a usage error or an interrupt stays one.
func Failf(format string, a ...any) error {
	err := fmt.Errorf(format, a...)
	var inner *ExitError
	if errors.As(err, &inner) {
		return &ExitError{Code: inner.Code, Err: err, Hint: inner.Hint}
	}
	return &ExitError{Code: exitcode.Failure, Err: err}
}

// BadInput wraps err as bad input data (exit 65).
func BadInput(err error) error {
	return &ExitError{Code: exitcode.BadInput, Err: err}
}

// WithCode wraps err with an exit code.
func WithCode(code int, err error) error {
	return &ExitError{Code: code, Err: err}
}

// Silent is an exit code with no message (the child's own exit code).
func Silent(code int) error {
	return &ExitError{Code: code}
}

// Code is the one place an error becomes the process exit code: nil is 0,
// the outermost ExitError in the chain its code, anything else 1. Wrap with
// %w (Failf does) so that an inner code survives.
func Code(err error) int {
	if err == nil {
		return exitcode.OK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return exitcode.Failure
}

// DiskHint is what to do when err says a disk refused a write (full, over
// quota, read-only, a mode, a file size limit) or a limit stopped loopkit
// (open files, processes: limits.Hint); "" for any other error. Finish writes it under
// the error line of $LOOPKIT_ERROR_FILE, for the driver's last line.
func DiskHint(err error) string {
	msg := strings.ToLower(err.Error())
	switch {
	case errors.Is(err, syscall.ENOSPC) || strings.Contains(msg, "no space left on device"):
		return noSpaceHint(err)
	case errors.Is(err, syscall.EDQUOT) || strings.Contains(msg, "disk quota exceeded"):
		return "the disk quota is used up: free space or raise the quota"
	case errors.Is(err, syscall.EROFS) || strings.Contains(msg, "read-only file system"):
		return "the file system is read-only: make it writable"
	case errors.Is(err, syscall.EACCES) || strings.Contains(msg, "permission denied"):
		return "loopkit may not read or write that file or folder: give it back its modes (chmod u+rwX)"
	case errors.Is(err, syscall.EFBIG) || strings.Contains(msg, "file too large"):
		return "a file reached " + limits.FileSize() + ": raise it (ulimit -f unlimited)"
	}
	return limits.Hint(err)
}
