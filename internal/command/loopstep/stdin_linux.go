package loopstep

import (
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// promptInput is the prompt as the agent's stdin, and what closes it: a
// sealed file in memory, which the agent reads as it reads a file (a
// shell's `read` takes a pipe one byte per system call, and a pipe needs a
// goroutine to feed it) and can neither change nor grow; a pipe where the
// kernel has no sealed memory files.
func promptInput(prompt string) (io.Reader, func()) {
	fd, err := unix.MemfdCreate("loopkit-prompt", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return strings.NewReader(prompt), func() {}
	}
	f := os.NewFile(uintptr(fd), "prompt")
	_, err = f.WriteString(prompt)
	if err == nil {
		_, err = unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, unix.F_SEAL_SEAL|unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_WRITE)
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return strings.NewReader(prompt), func() {}
	}
	return f, func() { f.Close() }
}
