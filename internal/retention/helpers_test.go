package retention

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/log"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

func newStore(t testing.TB) *store.Store {
	t.Helper()
	st := &store.Store{Root: filepath.Join(t.TempDir(), ".loop")}
	if err := st.Init(); err != nil {
		t.Fatal(err)
	}
	return st
}

// makeRun creates a real run updated ageDays ago, with an iteration folder
// and log files, as loop-record leaves them.
func makeRun(t testing.TB, st *store.Store, id string, ageDays float64, status string) {
	t.Helper()
	r := store.NewRun(id, id, time.Now().Add(-time.Duration(ageDays*24*float64(time.Hour))).UnixMilli())
	r.Status = status
	if err := st.CreateRun(r); err != nil {
		t.Fatal(err)
	}
	dir := st.IterationDir(id, 1)
	if err := os.MkdirAll(dir, store.DirMode); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		filepath.Join(dir, "agent.stdout"):         strings.Repeat("agent output\n", 100),
		st.RunPath(id, store.IterationsFile):       `{"iteration":1}` + "\n",
		filepath.Join(dir, "validation.stdout"):    "ok\n",
		st.RunPath(id, store.ContextDir, "c.md"):   "context\n",
		st.RunPath(id, store.IterationsDir, "..x"): "odd name\n",
	} {
		os.MkdirAll(filepath.Dir(name), store.DirMode)
		if err := os.WriteFile(name, []byte(data), store.FileMode); err != nil {
			t.Fatal(err)
		}
	}
}

// treeHash lists every entry under dir (not following symlinks) with its
// mode and content, to prove a directory was left untouched.
func treeHash(t testing.TB, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %s", p, info.Mode())
		switch {
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			b.WriteString(" " + hex.EncodeToString(sum[:8]))
		case info.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			b.WriteString(" -> " + l)
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func quietLog() *log.Logger {
	return log.NewWithOptions(io.Discard, log.Options{})
}

func clean(t testing.TB, st *store.Store, o Options) (Report, map[string]Decision) {
	t.Helper()
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.Log == nil {
		o.Log = quietLog()
	}
	got := map[string]Decision{}
	rep, err := Clean(st, o, func(d Decision) error {
		got[d.RunID] = d
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return rep, got
}

var defaults = Policy{KeepLast: DefaultKeepLast, KeepDays: DefaultKeepDays}

// writeRunJSON writes a run.json straight into dir (a directory outside the
// store that a symlinked run points at).
func writeRunJSON(t testing.TB, dir, id string, updatedAt int64) {
	t.Helper()
	r := store.NewRun(id, id, updatedAt)
	data, err := record.MarshalIndent(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, store.RunFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
}
