package proc

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/wfile"
)

// A spool file that cannot be written (EIO, ENOSPC) fails the run loudly
// and stops the child, which is never left blocked on an undrained pipe:
// the copier once stopped silently and the child hung on a full pipe.
// The 60 s timeout only keeps a regression from hanging the suite.
func TestSpoolWriteErrorFailsLoudly(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.EIO, syscall.ENOSPC} {
		for _, which := range []string{"out", "err"} {
			t.Run(errno.Error()+"/"+which, func(t *testing.T) {
				dir := t.TempDir()
				target := filepath.Join(dir, which)
				writes := 0
				defer wfile.SetFault(func(op wfile.Op, path string) error {
					if op == wfile.Write && path == target {
						if writes++; writes > 1 {
							return errno
						}
					}
					return nil
				})()
				// stdout is the child's to write: what we see is its file
				// system filling up
				if which == "out" {
					if errno == syscall.EIO {
						t.Skip("the child writes its stdout itself: its EIO is its own")
					}
					full := spoolFull
					defer func() { spoolFull = full }()
					spoolFull = func(f *os.File) bool {
						fi, err := f.Stat()
						return err == nil && fi.Size() > 100000
					}
				}
				var live bytes.Buffer
				start := time.Now()
				// the child writes its stream for 30 s unless it is stopped
				script := "i=0; while [ $i -lt 300 ]; do head -c 100000 /dev/zero; sleep 0.1; i=$((i+1)); done"
				if which == "err" {
					script = "exec >&2; " + script
				}
				_, err := Run(Spec{
					Args:       []string{"sh", "-c", script},
					StdoutPath: filepath.Join(dir, "out"), StderrPath: filepath.Join(dir, "err"),
					Tee: &live, InlineCap: 10, Timeout: 60 * time.Second,
				})
				if !errors.Is(err, errno) || !strings.Contains(err.Error(), target) {
					t.Fatalf("err = %v, want %v naming %s", err, errno, target)
				}
				if d := time.Since(start); d > 20*time.Second {
					t.Errorf("the child ran on for %s after its spool failed", d)
				}
			})
		}
	}
}
