package proc

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// exitWriteHelper does what node CLIs (Gemini CLI) do with a large last
// answer: one write into a non-blocking stdout, then exit without waiting
// for what the stream did not take.
func exitWriteHelper(n string) {
	size, _ := strconv.Atoi(n)
	syscall.SetNonblock(1, true)
	b := bytes.Repeat([]byte("x"), size-1)
	syscall.Write(1, append(b, '\n'))
	os.Exit(0)
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
	_, err := Run(Spec{
		Args: []string{os.Args[0], "-test.run=^$"}, Env: append(os.Environ(), "PROC_REWIND_HELPER=1"),
		StdoutPath: filepath.Join(dir, "out"), StderrPath: filepath.Join(dir, "err"),
		StdoutTee: &live, InlineCap: 100,
	})
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
	res, err := Run(Spec{
		Args: []string{os.Args[0], "-test.run=^$"}, Env: append(os.Environ(), "PROC_GROW_HELPER=1"),
		StdoutPath: filepath.Join(dir, "out"), StderrPath: filepath.Join(dir, "err"),
		StdoutTee: &live, InlineCap: 100,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.StdoutBytes > 2*holeCheck || live.n != res.StdoutBytes {
		t.Fatalf("read %d bytes (live %d) of a file the child grew to 64 GiB: want at most %d", res.StdoutBytes, live.n, 2*holeCheck)
	}
}

// A child that writes 3 MiB at once and exits loses nothing: on main the
// agent's stdout was a 1 MiB pipe, and Gemini CLI's 3 MiB answer was cut
// with its result line.
func TestExitRightAfterLargeWriteKeepsAll(t *testing.T) {
	dir := t.TempDir()
	const size = 3 << 20
	var live bytes.Buffer
	cmd := os.Args[0]
	res, err := Run(Spec{
		Args: []string{cmd, "-test.run=^$"}, Env: append(os.Environ(), "PROC_EXITWRITE_HELPER="+strconv.Itoa(size)),
		StdoutPath: filepath.Join(dir, "out"), StderrPath: filepath.Join(dir, "err"),
		StdoutTee: &live, InlineCap: 100,
	})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "out"))
	if err != nil || fi.Size() != size || res.StdoutBytes != size || live.Len() != size {
		t.Fatalf("spool %d (%v), counted %d, live %d: want %d each", fi.Size(), err, res.StdoutBytes, live.Len(), size)
	}
	if !bytes.HasSuffix(res.Stdout, []byte("x\n")) || len(res.Stdout) != 100 {
		t.Errorf("the kept end: %q", res.Stdout)
	}
}
