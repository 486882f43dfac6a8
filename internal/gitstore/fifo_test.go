package gitstore

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// git opens .gitignore and .gitattributes files to read them, and opening
// a FIFO waits for a writer: a FIFO the agent named so held the snapshot
// (git add) and the patch (git diff, run in the workspace) forever, and
// the loop with them. Both now end, the FIFOs recorded as git records
// them (not at all), the step's file recorded.
func TestFIFOInWorkTreeHoldsNothing(t *testing.T) {
	dir, runDir, spool := plainFolder(t, "a\n")
	odb := filepath.Join(spool, "s.git")
	base, _, _, err := Base(dir, odb, runDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	fifos := []string{filepath.Join(dir, ".gitignore"), filepath.Join(dir, "sub", ".gitattributes")}
	for _, f := range fifos {
		if err := syscall.Mkfifo(f, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(t, dir, "sub/f", "x\n", 0o644)
	t.Chdir(dir) // where loop-record and loop-view run

	type result struct {
		paths []string
		patch string
		err   error
	}
	done := make(chan result, 1)
	go func() {
		where, err := LocateAny(dir)
		if err != nil {
			done <- result{err: err}
			return
		}
		repo, tree, err := AfterStep(runDir, where, odb, "")
		if err != nil {
			done <- result{err: err}
			return
		}
		cs, err := repo.Changes(base, tree)
		if err != nil {
			done <- result{err: err}
			return
		}
		var b strings.Builder
		err = repo.Diff(&b, base, tree)
		done <- result{Paths(cs), b.String(), err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatal(r.err)
		}
		if !reflect.DeepEqual(r.paths, []string{"sub/f"}) || !strings.Contains(r.patch, "+++ b/sub/f") {
			t.Errorf("changed %v, patch %q; want sub/f", r.paths, r.patch)
		}
	case <-time.After(20 * time.Second):
		for _, f := range fifos { // let git go, for the test to end
			if fd, err := syscall.Open(f, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				syscall.Close(fd)
			}
		}
		t.Fatal("the snapshot or its diff waits on a FIFO in the work tree")
	}
}
