package proc

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A spool stream the agent swapped for a FIFO or a link while it ran must
// be refused, never waited on or followed: FileTail reads what a step left.
func TestFileTailRefusesPlantedFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "agent.stdout")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	link := filepath.Join(dir, "agent.stderr")
	if err := os.Symlink("/etc/passwd", link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, link} {
		done := make(chan error, 1)
		go func() { _, _, err := FileTail(p, 100); done <- err }()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("FileTail(%s) read it; want it refused", filepath.Base(p))
			}
		case <-time.After(10 * time.Second): // a bound on a hang, not a timing assertion
			// unblock the open so the goroutine ends
			if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
			t.Fatalf("FileTail(%s) waited on it", filepath.Base(p))
		}
	}
	reg := filepath.Join(dir, "ok")
	if err := os.WriteFile(reg, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, n, err := FileTail(reg, 4)
	if err != nil || string(b) != "6789" || n != 10 {
		t.Fatalf("FileTail(regular) = %q, %d, %v; want \"6789\", 10", b, n, err)
	}
}
