// Package cli holds the conventions every loopkit command shares: flag
// parsing with help on stdout, config files, logging on stderr, exit codes.
package cli

import (
	"errors"
	"fmt"
)

// Exit codes (docs/cli.md "Exit status").
const (
	ExitOK        = 0
	ExitFailure   = 1
	ExitUsage     = 2
	ExitBadInput  = 65
	ExitTimeout   = 124
	ExitNoExec    = 126
	ExitNotFound  = 127
	ExitInterrupt = 130
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
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, a...)}
}

// Failf is an operational failure (exit 1).
func Failf(format string, a ...any) error {
	return &ExitError{Code: ExitFailure, Err: fmt.Errorf(format, a...)}
}

// BadInput wraps err as bad input data (exit 65).
func BadInput(err error) error {
	return &ExitError{Code: ExitBadInput, Err: err}
}

// WithCode wraps err with an exit code.
func WithCode(code int, err error) error {
	return &ExitError{Code: code, Err: err}
}

// Silent is an exit code with no message (the child's own exit code).
func Silent(code int) error {
	return &ExitError{Code: code}
}

// Code maps an error to the process exit code: nil is 0, an ExitError its
// code, anything else 1.
func Code(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return ExitFailure
}
