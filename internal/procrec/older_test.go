package procrec

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/loopkit/loopkit/internal/procid"
	"github.com/loopkit/loopkit/internal/userdir"
)

// An older loopkit's record of a live driver, in $TMPDIR/loopkit-UID
// (no XDG_RUNTIME_DIR), names it for its run only; with XDG_RUNTIME_DIR
// both versions share one record, and that directory is not read.
func TestOlderDrivers(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	pid := os.Getpid()
	start, err := procid.Start(pid)
	if err != nil {
		t.Skip("no start times here:", err)
	}
	procs := filepath.Join(userdir.OlderRuntime(), "procs")
	if err := os.MkdirAll(procs, 0o700); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(procs, strconv.Itoa(pid)+"-"+strconv.FormatUint(start, 10))
	if err := os.WriteFile(rec, []byte("driver\n/r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := OlderDrivers("/r"); got[pid] != start || len(got) != 1 {
		t.Errorf("OlderDrivers(/r) = %v, want %d", got, pid)
	}
	if got := OlderDrivers("/other"); len(got) != 0 {
		t.Errorf("OlderDrivers(/other) = %v", got)
	}
	if got := OlderDriverRuns(); got["/r"] != pid || len(got) != 1 {
		t.Errorf("OlderDriverRuns() = %v, want /r: %d", got, pid)
	}
	if got := Drivers("/r"); len(got) != 0 {
		t.Errorf("Drivers(/r) = %v: the older record is no record of this version's", got)
	}
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	if got := OlderDrivers("/r"); len(got) != 0 {
		t.Errorf("with XDG_RUNTIME_DIR, OlderDrivers(/r) = %v", got)
	}
}

// Most users never ran an older loopkit: without its directory there is
// nothing to name (this panicked, and with it the command that asked).
func TestOlderDriversWithoutTheirDirectory(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("TMPDIR", t.TempDir())
	if got := OlderDrivers("/r"); len(got) != 0 {
		t.Errorf("OlderDrivers(/r) = %v, want none", got)
	}
}
