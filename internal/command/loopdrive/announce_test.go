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

// catching is a holder in a new store, its records in out, catching signals.
func catching(t *testing.T) (*holder, *bytes.Buffer) {
	st, err := store.Open(filepath.Join(t.TempDir(), ".loop"))
	if err != nil {
		t.Fatal(err)
	}
	out := &bytes.Buffer{}
	h := &holder{env: cli.NewEnv("loop-drive", nil, strings.NewReader(""), out, out), st: st}
	h.catchSignals()
	return h, out
}

// TestAnnounceSignalled: a SIGINT that comes between the run's creation and
// the driver hearing its id is held until the id is said, then said too,
// so the driver marks the run canceled; before, it killed this process
// there and the run was left running, unnamed.
func TestAnnounceSignalled(t *testing.T) {
	h, out := catching(t)
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); len(h.caught) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("SIGINT never caught")
		}
	}
	if err := h.announce("r1"); err != errSignalled {
		t.Fatalf("announce = %v, want errSignalled", err)
	}
	if got := out.String(); !strings.HasSuffix(got, "run=r1\x00signal=INT\x00") {
		t.Fatalf("records %q: want run=r1, then signal=INT", got)
	}
}

// TestAnnounceQuiet: without a signal, announce says the id and no more.
func TestAnnounceQuiet(t *testing.T) {
	h, out := catching(t)
	if err := h.announce("r1"); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.HasSuffix(got, "run=r1\x00") {
		t.Fatalf("records %q: want run=r1 last", got)
	}
}
