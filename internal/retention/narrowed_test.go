package retention

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/store"
	"github.com/loopkit/loopkit/internal/testsupport/otheruser"
)

// cleanChild, set, makes TestCleanNarrowedAndForeignFolders the other
// user's part of itself: it cleans the store the variable names.
const cleanChild = "LOOPKIT_CLEAN_CHILD"

// A run with a folder the agent or the person narrowed (chmod 500, 000)
// was renamed to a tombstone, gone from every view, then not removed; and
// from then on every clean, the automatic one too, stopped at that
// tombstone: no run of the store was deleted again. A tombstone holding
// another user's folder (a run an older loopkit wrote under sudo) did the
// same. Now a narrowed folder of the user's is opened up and removed, and
// one that is not theirs is named with the fix while the policy goes on.
func TestCleanNarrowedAndForeignFolders(t *testing.T) {
	if root := os.Getenv(cleanChild); root != "" {
		st := &store.Store{Root: root}
		rep, err := Clean(st, Options{Policy: defaults, Log: quietLog(), Now: time.Now()}, nil)
		names, _ := os.ReadDir(st.RunsDir())
		var left []string
		for _, n := range names {
			left = append(left, n.Name())
		}
		spool, _ := os.ReadDir(st.SpoolDir())
		out, _ := json.Marshal(map[string]any{"deleted": rep.Deleted, "failed": rep.Failed, "err": fmt.Sprint(err), "left": left, "spool": len(spool)})
		fmt.Printf("clean: %s\n", out)
		return
	}
	otheruser.Rerunnable(t)
	st := &store.Store{Root: filepath.Join(otheruser.Reachable(t), ".loop")}
	if err := st.Init(); err != nil {
		t.Fatal(err)
	}
	makeRun(t, st, "narrowed", 30, "completed")
	makeRun(t, st, "old", 30, "completed")
	makeRun(t, st, "fresh", 1, "completed")
	makeRun(t, st, "sudo", 30, "completed")
	tomb := filepath.Join(st.RunsDir(), store.TombPrefix+"sudo-123")
	if err := os.Rename(st.RunDir("sudo"), tomb); err != nil {
		t.Fatal(err)
	}
	roots := filepath.Join(tomb, store.IterationsDir, "002")
	if err := os.MkdirAll(roots, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(roots, "agent.stdout"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	// a gone step's base objects, a folder of them narrowed
	objects := filepath.Join(st.SpoolDir(), fmt.Sprintf("%d-%d-ff.step.git", time.Now().Add(-48*time.Hour).UnixMilli(), deadPID(t)))
	if err := os.MkdirAll(filepath.Join(objects, "objects", "ab"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(objects, "objects", "ab", "cdef"), []byte("blob"), 0o400)
	if os.Geteuid() == 0 {
		if err := exec.Command("chown", "-R", "4242:4242", st.Root).Run(); err != nil {
			t.Skip("cannot chown:", err)
		}
		if err := os.Lchown(roots, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(st.IterationDir("narrowed", 1), 0o500)
	os.Chmod(st.RunPath("narrowed", store.ContextDir), 0)
	os.Chmod(filepath.Join(objects, "objects", "ab"), 0)
	old := time.Now().Add(-48 * time.Hour)
	os.Chtimes(objects, old, old)
	out := otheruser.Rerun(t, cleanChild+"="+st.Root)
	_, line, _ := strings.Cut(out, "clean: ")
	line, _, _ = strings.Cut(line, "\n")
	var got struct {
		Deleted, Failed int
		Err             string
		Left            []string
		Spool           int
	}
	if err := json.Unmarshal([]byte(line), &got); err != nil {
		t.Fatalf("as uid 4242: %v: %s", err, out)
	}
	if got.Err != "<nil>" || got.Deleted != 2 || got.Failed != 1 || strings.Join(got.Left, " ") != ".tomb-sudo-123 fresh" || got.Spool != 0 {
		t.Errorf("as uid 4242: %+v, want narrowed, old and the spool's objects deleted, the tombstone of root's folder left and failed, no error", got)
	}
}
