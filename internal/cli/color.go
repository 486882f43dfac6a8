package cli

import (
	"io"
	"os"

	"github.com/charmbracelet/log"
	"github.com/muesli/termenv"
	"golang.org/x/sys/unix"

	"github.com/loopkit/loopkit/internal/lazylog"
)

// IsTerminal reports whether f is a terminal (nil is not).
// A character device is not enough (/dev/null is one): a terminal answers
// a terminal's ioctl. SyscallConn leaves the file's blocking mode alone.
func IsTerminal(f *os.File) bool {
	if f == nil {
		return false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	ok := false
	rc.Control(func(fd uintptr) {
		_, err := unix.IoctlGetTermios(int(fd), ioctlReadTermios)
		ok = err == nil
	})
	return ok
}

// ColorFor decides whether output to f may be coloured, from the
// environment and isatty only: NO_COLOR (not empty) turns colour off,
// CLICOLOR_FORCE (not "0") turns it on even in a pipe, TERM=dumb or an empty
// TERM turns it off, else colour when f is a terminal. Nothing is ever asked
// of the terminal itself: a terminal that does not answer would stall us.
func ColorFor(f *os.File) bool {
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	if v := os.Getenv("CLICOLOR_FORCE"); v != "" && v != "0" {
		return true
	}
	if DumbTerminal() {
		return false
	}
	return IsTerminal(f)
}

// DumbTerminal reports a TERM of dumb or none (Emacs' shell, M-x compile,
// some CI): it prints lines, and cannot move the cursor or switch screens.
func DumbTerminal() bool {
	t := os.Getenv("TERM")
	return t == "" || t == "dumb"
}

// CanDrawScreen reports whether a full-screen view may be drawn: stdin and
// out are terminals, and TERM names one that moves the cursor. On a dumb
// terminal the view's escapes would be printed as they are.
func CanDrawScreen(out *os.File) bool {
	return IsTerminal(os.Stdin) && IsTerminal(out) && !DumbTerminal()
}

// plainWriter hides the *os.File behind a writer, so the logging library's
// terminal layer (termenv) never sees a terminal and never sends its colour
// queries (OSC 10/11 and a cursor report), which wait 5 s each for an answer
// a silent terminal never gives.
type plainWriter struct{ io.Writer }

// NewLogger is the stderr logger of a command: prefixed with its name,
// coloured only when ColorFor(stderr) says so; made at its first line.
func NewLogger(w io.Writer, name string) *lazylog.Lazy {
	return lazylog.New(func() *log.Logger {
		f, _ := w.(*os.File)
		l := log.NewWithOptions(plainWriter{w}, log.Options{Prefix: name})
		if ColorFor(f) {
			l.SetColorProfile(termenv.ANSI256)
		} else {
			l.SetColorProfile(termenv.Ascii)
		}
		return l
	})
}

// TerminalWidth is the width of the terminal f is, 0 when f is none.
func TerminalWidth(f *os.File) int {
	if f == nil {
		return 0
	}
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}
