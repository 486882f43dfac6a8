package proc

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

type failingWriter struct{ n int }

func (f *failingWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("closed")
}

// A live copy that fails (stderr closed, its reader gone) must not stop the
// copy into the spool: the child would block on a full pipe forever. The
// timeout only keeps a regression from hanging the suite.
func TestFailingTeeNeverBlocksCapture(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	tee := &failingWriter{}
	res, err := Run(Spec{
		Args:       []string{"sh", "-c", "head -c 3000000 /dev/zero; head -c 3000000 /dev/zero >&2"},
		StdoutPath: out, StderrPath: filepath.Join(dir, "err"),
		Tee: tee, InlineCap: 10, Timeout: 60 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.TimedOut || res.ExitCode != 0 {
		t.Fatalf("the child blocked behind a failing tee: %+v", res)
	}
	if fi, err := os.Stat(out); err != nil || fi.Size() != 3000000 || res.StdoutBytes != 3000000 || res.StderrBytes != 3000000 {
		t.Fatalf("spool %v %v, bytes %d/%d", fi.Size(), err, res.StdoutBytes, res.StderrBytes)
	}
	if tee.n != 1 {
		t.Errorf("the failed tee was written %d times, want once", tee.n)
	}
}

// A daemon that left the group and holds the spool file open is a stray
// writer; a child whose output is closed when it ends is not.
func TestStrayWriter(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("leases are Linux-only; elsewhere every capture counts as stray")
	}
	dir := t.TempDir()
	spec := func(script string) Spec {
		return Spec{Args: []string{"sh", "-c", script}, StdoutPath: filepath.Join(dir, "out"), StderrPath: filepath.Join(dir, "err"), InlineCap: 100}
	}
	res, err := Run(spec("echo hi; sleep 0.1 & wait"))
	if err != nil || res.StrayWriter {
		t.Fatalf("plain child: stray %v err %v", res.StrayWriter, err)
	}
	if _, err := os.Stat("/usr/bin/setsid"); err != nil {
		t.Skip("no setsid")
	}
	// The daemon marks when it has left the group: without the wait, the
	// group can be killed before setsid runs, and no daemon is left.
	started := filepath.Join(dir, "started")
	res, err = Run(spec(`setsid sh -c 'touch "$0"; exec sleep 2' '` + started + `' & while [ ! -e '` + started + `' ]; do sleep 0.01; done; echo hi`))
	if err != nil || !res.StrayWriter {
		t.Fatalf("setsid daemon holding stdout: stray %v err %v", res.StrayWriter, err)
	}
}
