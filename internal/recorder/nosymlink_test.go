package recorder

import (
	"bytes"
	"os"
	"syscall"
	"testing"

	"github.com/loopkit/loopkit/internal/store"
)

// A store on FAT or exFAT has no symlinks (ENOSYS from exfat-fuse, EPERM
// from vfat): the snapshot is still written, and context_latest.md is a
// copy of it rather than a failure on every iteration.
func TestSnapshotWithoutSymlinks(t *testing.T) {
	t.Cleanup(func() { symlink = os.Symlink })
	for _, errno := range []syscall.Errno{syscall.ENOSYS, syscall.EPERM, syscall.EOPNOTSUPP} {
		symlink = func(string, string) error { return &os.LinkError{Op: "symlink", Err: errno} }
		r := newRecorder(t)
		r.Record("s", validation(t, 1, "fail\n"), 0)
		for range 2 {
			path, err := r.Snapshot("s", "stuck")
			if err != nil {
				t.Fatalf("%v: %v", errno, err)
			}
			latest := r.St.RunPath("s", store.ContextDir, "context_latest.md")
			got, err1 := os.ReadFile(latest)
			want, err2 := os.ReadFile(path)
			if err1 != nil || err2 != nil || !bytes.Equal(got, want) {
				t.Fatalf("%v: context_latest.md is not a copy of %s (%v, %v)", errno, path, err1, err2)
			}
		}
	}
}
