// Package storetest makes the stores tests start from.
package storetest

import (
	"path/filepath"
	"testing"
	"time"

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
