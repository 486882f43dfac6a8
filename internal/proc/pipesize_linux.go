package proc

import (
	"os"

	"golang.org/x/sys/unix"
)

// pipeBytes is the size of the pipe for a stdout with no spool file
// (loop-step --no-store): node CLIs (Gemini CLI 0.61) write their last
// lines and exit without waiting for what the pipe did not take, which a
// 64 KiB pipe cut at 64 KiB. 1 MiB is Linux's default pipe-max-size; past
// a lower limit the pipe keeps its size. Only stdout grows: a user's pipes
// share a 64 MiB soft limit (pipe-user-pages-soft).
const pipeBytes = 1 << 20

// growPipe sets the pipe's size through the write end, whose mode it
// leaves alone (Fd would make it blocking).
func growPipe(w *os.File) {
	if rc, err := w.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) { unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeBytes) })
	}
}
