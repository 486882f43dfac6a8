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

// An agent that exits with its last writes pending loses nothing, the
// live reader included: its stdout is its spool file. Through the 1 MiB
// pipe it had before, 3 MiB written at once kept 1048576 bytes.
func TestBurstBeforeExitKept(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	const size = 3 << 20
	var live counter
	spec := helperSpec(dir, "PROC_BURST_HELPER="+strconv.Itoa(size), &live)
	spec.InlineCap, spec.Timeout = 10, 60*time.Second
	spec.Activity = func([]byte) (bool, bool) { return true, false }
	res, err := Run(spec)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(out); err != nil || fi.Size() != size || res.StdoutBytes != size || live.n != size {
		t.Fatalf("kept %d of the %d bytes written before exit, counted %d, live %d (%v; exit %d)", fi.Size(), size, res.StdoutBytes, live.n, err, res.ExitCode)
	}
}
