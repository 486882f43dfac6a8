// Package exitcode is loopkit's one table of process exit statuses
// (docs/cli.md and docs/driver.md "Exit status"): every command and the
// driver take their codes from here, and cli.Code maps an error to one.
package exitcode

// The commands' statuses.
const (
	OK        = 0
	Failure   = 1 // an operational failure: I/O, no such run, a conflict
	Usage     = 2 // a bad flag, value or setting
	BadInput  = 65
	Internal  = 70 // an internal error of loopkit (the driver marks the run failed)
	Busy      = 75 // another driver holds the run, or the run is paused
	Timeout   = 124
	NoExec    = 126 // the command could not be executed
	NotFound  = 127
	Interrupt = 130 // 128+SIGINT
)

// The driver's statuses for how a run ended (scripts/loop run).
const (
	Completed = OK
	Stuck     = 1
	Failed    = 3
)
