// Package storetest makes the stores tests start from.
package storetest

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/procid"
	"github.com/loopkit/loopkit/internal/procrec"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
)

// Run is a new store in a temporary folder holding run "r" with the
// default settings, as edit leaves it; and the run as created.
func Run(t testing.TB, edit func(*record.Run)) (*store.Store, *record.Run) {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), ".loop"))
	if err != nil {
		t.Fatal(err)
	}
	run := store.NewRun("r", "r", time.Now().UnixMilli())
	run.Settings = runconfig.Defaults()
	edit(run)
	if err := st.CreateRun(run); err != nil {
		t.Fatal(err)
	}
	return st, run
}

// Driven is Run in fresh runtime and state directories (loopkit's process
// record starts empty), its run "r" a driven one (it has an agent) in
// status, as a driver leaves it.
func Driven(t *testing.T, status string) *store.Store {
	t.Helper()
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	st, _ := Run(t, func(r *record.Run) {
		r.Settings.Agent = []string{"agent"}
		r.Status = status
	})
	return st
}

// RecordDriver records live process pid in loopkit's process record as
// the driver of st's run id, as a driver that took the run does; the
// returned func drops the record, as that driver does when it ends.
func RecordDriver(t testing.TB, st *store.Store, id string, pid int) func() {
	t.Helper()
	start, err := procid.Start(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := procrec.Add(pid, start, procrec.Driver, st.RunDir(id)); err != nil {
		t.Fatal(err)
	}
	return func() { procrec.Remove(pid, start) }
}
