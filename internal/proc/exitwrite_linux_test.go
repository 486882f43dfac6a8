package proc

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// helperSpec runs this test binary as the helper env names (TestMain),
// its streams spooled in dir and its stdout read live by tee.
func helperSpec(dir, env string, tee io.Writer) Spec {
	return Spec{Args: []string{os.Args[0], "-test.run=^$"}, Env: append(os.Environ(), env),
		StdoutPath: filepath.Join(dir, "out"), StderrPath: filepath.Join(dir, "err"), StdoutTee: tee, InlineCap: 100}
}

// rewindHelper writes a line, seeks its stdout back to the start and
// writes again, as a child rewriting what it said would.
func rewindHelper() {
	syscall.Write(1, []byte("first\n"))
	syscall.Seek(1, 0, 0)
	syscall.Write(1, []byte("X"))
	os.Exit(0)
}

// The spool file handed to the child keeps what it wrote in order: it
// cannot rewind it and overwrite what the live parser already read.
func TestChildCannotRewriteItsSpool(t *testing.T) {
	dir := t.TempDir()
	var live bytes.Buffer
	_, err := Run(helperSpec(dir, "PROC_REWIND_HELPER=1", &live))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "out")); string(b) != "first\nX" || live.String() != "first\nX" {
		t.Fatalf("spool %q, live %q: want both %q", b, live.String(), "first\nX")
	}
}

// growHelper writes a line and grows its stdout to 64 GiB with ftruncate,
// zeros nobody wrote, then exits.
func growHelper() {
	syscall.Write(1, []byte("line\n"))
	syscall.Ftruncate(1, 64<<30)
	os.Exit(0)
}

type counter struct{ n int64 }

func (c *counter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// A child that grows its spool file with ftruncate is read up to the hole,
// not through 64 GiB of zeros after it has ended (which the follower did
// with no bound, outside any timeout).
func TestGrownSpoolIsReadToItsData(t *testing.T) {
	dir := t.TempDir()
	var live counter
	res, err := Run(helperSpec(dir, "PROC_GROW_HELPER=1", &live))
	if err != nil {
		t.Fatal(err)
	}
	if res.StdoutBytes > 2*holeCheck || live.n != res.StdoutBytes {
		t.Fatalf("read %d bytes (live %d) of a file the child grew to 64 GiB: want at most %d", res.StdoutBytes, live.n, 2*holeCheck)
	}
}
