package loopdrive

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/store"
)

// A FIFO planted as a spool meta (the spool is in the agent's reach) must
// not hang loop cancel's clean-up of what a crashed driver left.
func TestStopLeftPlantedFIFO(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), ".loop"))
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(st.SpoolDir(), 0o700)
	fifo := filepath.Join(st.SpoolDir(), "1-2-ab.step.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	env := cli.NewEnv("loop-drive", nil, strings.NewReader(""), &out, &out)
	done := make(chan struct{})
	go func() { stopLeft(env, st, "r"); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close() // releases the reader
		}
		t.Fatal("stopLeft still reading a FIFO spool meta after 20 s")
	}
}
