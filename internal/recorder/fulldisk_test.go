//go:build linux

package recorder

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/loopkit/loopkit/internal/gitstore"
	"github.com/loopkit/loopkit/internal/store"
)

// git's own writes (objects, the private index) on a disk that is full for
// real: the run's private git directory on a small tmpfs, filled. The
// record fails with one line naming the disk's error (before, git's exit
// was taken for an unreadable repository: the iteration was committed
// without its tree, with a warning), the log stays as it was, and once
// there is room again the next writer records the iteration whole. The
// tmpfs needs a mount namespace of its own: the test runs itself again
// under `unshare -rm`, and is skipped where that is not allowed.
func TestRecordGitFullDisk(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	if os.Getenv("LOOPKIT_FULLDISK_CHILD") == "" {
		if out, err := exec.Command("unshare", "-rm", "true").CombinedOutput(); err != nil {
			t.Skipf("no mount namespace here (unshare -rm: %v %s): a tmpfs cannot be filled", err, bytes.TrimSpace(out))
		}
		cmd := exec.Command("unshare", "-rm", os.Args[0], "-test.run=^TestRecordGitFullDisk$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "LOOPKIT_FULLDISK_CHILD=1")
		out, err := cmd.CombinedOutput()
		t.Logf("in its own mount namespace:\n%s", out)
		if err != nil {
			t.Fatalf("the test in its own mount namespace: %v", err)
		}
		return
	}
	r, input := faultStore(t)
	gitdir := r.St.RunPath("r", gitstore.Dir)
	orig := gitdir + ".orig"
	if err := os.Rename(gitdir, orig); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(gitdir, 0o700)
	if err := syscall.Mount("tmpfs", gitdir, "tmpfs", 0, "size=1m,mode=0700"); err != nil {
		t.Fatalf("mount a tmpfs: %v", err)
	}
	defer syscall.Unmount(gitdir, syscall.MNT_DETACH)
	if out, err := exec.Command("cp", "-a", orig+"/.", gitdir+"/").CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	filler := filepath.Join(gitdir, "filler")
	fill := func() {
		f, err := os.Create(filler)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 4096)
		for {
			if _, err := f.Write(buf); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatal(err)
				}
				break
			}
		}
		f.Close()
	}
	fill()
	log := r.St.RunPath("r", store.IterationsFile)
	before, _ := os.ReadFile(log)
	in := input(2)
	_, err := r.Record("r", in, 2)
	if err == nil {
		t.Fatal("recorded on a full disk without an error")
	}
	if !errors.Is(err, syscall.ENOSPC) || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q: want one line wrapping ENOSPC", err)
	}
	t.Logf("the record failed: %v", err)
	// git dies on the write it cannot make, leaving its temporary object:
	// the record removes it, as nothing later would (git gc never runs here)
	if left, _ := filepath.Glob(filepath.Join(gitdir, "objects", "*", "tmp_obj_*")); len(left) > 0 {
		t.Errorf("git's temporary objects left in the run: %v", left)
	}
	if after, _ := os.ReadFile(log); !bytes.Equal(before, after) {
		t.Fatalf("the log changed on a failed record:\n%s", after)
	}
	os.Remove(filler)
	if _, err := r.Record("r", in, 2); err != nil {
		t.Fatalf("with room again: %v", err)
	}
	run, err := r.St.ReadRun("r")
	if err != nil || run.Iteration != 2 {
		t.Fatalf("run.json says iteration %v (%v)", run, err)
	}
	repo, err := gitstore.Open(r.St.RunDir("r"))
	if err != nil {
		t.Fatal(err)
	}
	if tree, err := repo.Tree(2); err != nil || tree == "" {
		t.Errorf("iteration 2's tree: %q %v", tree, err)
	}
}
