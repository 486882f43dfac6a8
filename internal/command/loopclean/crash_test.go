package loopclean_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/retention"
	"github.com/loopkit/loopkit/internal/store"
)

// runHash hashes a run directory's names and contents, so a run under its
// real name can be checked whole after a killed clean.
func runHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(h, "%s %v\n", rel, e.Type())
		if e.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(data)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("hash %s: %v", dir, err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// fillRun writes a run with many files and folders (no fsync, for speed), so
// that deleting it takes a while and a kill can land inside the removal.
func fillRun(t *testing.T, st *store.Store, id string, ageDays int) {
	t.Helper()
	r := store.NewRun(id, id, time.Now().Add(-time.Duration(ageDays)*24*time.Hour).UnixMilli())
	data, _ := record.MarshalIndent(r)
	must(t, os.MkdirAll(st.RunDir(id), store.DirMode))
	must(t, os.WriteFile(st.RunPath(id, store.RunFile), data, store.FileMode))
	for _, lock := range []string{store.AppendLock, store.LiveLock} { // born with the run
		must(t, os.WriteFile(st.RunPath(id, lock), nil, store.FileMode))
	}
	for n := 1; n <= 3; n++ {
		dir := st.IterationDir(id, n)
		must(t, os.MkdirAll(dir, store.DirMode))
		for _, f := range []string{"meta.json", "agent.stdout", "validation.stdout", "prompt.txt"} {
			must(t, os.WriteFile(filepath.Join(dir, f), []byte(strings.Repeat(f+"\n", 50)), store.FileMode))
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A clean killed with SIGKILL at random moments never leaves a half-deleted
// directory under a real run name: every run still there is whole, and the
// next clean finishes the tombstones. LOOPKIT_CRASH_ROUNDS sets the rounds.
func TestCleanKilledMidDelete(t *testing.T) {
	rounds := 16
	if s := os.Getenv("LOOPKIT_CRASH_ROUNDS"); s != "" {
		n, err := strconv.Atoi(s)
		must(t, err)
		rounds = n
	}
	if testing.Short() {
		rounds = 4
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	killedMid := 0
	for round := range rounds {
		st := newStore(t)
		want := map[string]string{}
		for i := range 10 {
			id := fmt.Sprintf("old-%02d", i)
			fillRun(t, st, id, 20+i)
			want[id] = runHash(t, st.RunDir(id))
		}
		for i := range 3 {
			id := fmt.Sprintf("new-%d", i)
			fillRun(t, st, id, 0)
			want[id] = runHash(t, st.RunDir(id))
		}

		cmd := command(st, "loop-clean")
		must(t, cmd.Start())
		time.Sleep(time.Duration(rng.IntN(12_000)) * time.Microsecond)
		cmd.Process.Signal(os.Kill)
		cmd.Wait()

		ids, err := st.RunIDs()
		must(t, err)
		tombs, _ := filepath.Glob(filepath.Join(st.RunsDir(), store.TombPrefix+"*"))
		if len(ids) < len(want) && len(ids) > 3 || len(tombs) > 0 {
			killedMid++
		}
		for _, id := range ids {
			if got := runHash(t, st.RunDir(id)); got != want[id] {
				t.Fatalf("round %d: run %s is not whole after the kill", round, id)
			}
		}

		got := runClean(t, st)
		ids, _ = st.RunIDs()
		tombs, _ = filepath.Glob(filepath.Join(st.RunsDir(), store.TombPrefix+"*"))
		if len(tombs) > 0 || len(ids) != 3 {
			t.Fatalf("round %d: after the next clean: runs %v, tombstones %v", round, ids, tombs)
		}
		for _, id := range ids {
			if runHash(t, st.RunDir(id)) != want[id] || got[id].Action != retention.Keep {
				t.Fatalf("round %d: kept run %s changed (%+v)", round, id, got[id])
			}
		}
	}
	t.Logf("%d of %d kills landed mid-clean", killedMid, rounds)
}
