package proc

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// burstHelper writes n bytes in one go to a non-blocking stdout and exits
// at once, as Gemini CLI 0.61 (node) does: what the pipe did not take is
// dropped, so a 400 KB answer and its result line were cut at 64 KB.
func burstHelper(n string) {
	size, _ := strconv.Atoi(n)
	syscall.SetNonblock(1, true)
	buf := make([]byte, size)
	for i := range buf {
		buf[i] = 'x'
	}
	syscall.Write(1, buf) // one try, like node before process.exit
	os.Exit(0)
}

// The capture pipe holds a whole burst: an agent that exits with its last
// writes pending loses nothing up to 1 MiB.
func TestBurstBeforeExitKept(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	const size = 400 << 10
	cmd := []string{os.Args[0], "-test.run=^$"}
	res, err := Run(Spec{Args: cmd, Env: append(os.Environ(), "PROC_BURST_HELPER="+strconv.Itoa(size)),
		StdoutPath: out, StderrPath: filepath.Join(dir, "err"), InlineCap: 10, Timeout: 60 * time.Second,
		Activity: func([]byte) (bool, bool) { return true, false }})
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(out); err != nil || fi.Size() != size {
		t.Fatalf("kept %d of the %d bytes written before exit (%v; exit %d)", fi.Size(), size, err, res.ExitCode)
	}
}
