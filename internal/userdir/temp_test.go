package userdir

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// A read-only /tmp with TMPDIR unset (a container's) was told to "unset"
// the TMPDIR it did not have.
func TestTempErrFix(t *testing.T) {
	if got := tempErr("/tmp", unix.EROFS, false).Error(); strings.Contains(got, "unset") || !strings.HasSuffix(got, "set TMPDIR to a folder you can write") {
		t.Errorf("TMPDIR unset: %q", got)
	}
	if got := tempErr("/x", unix.ENOENT, true).Error(); !strings.HasSuffix(got, "set TMPDIR to a folder you can write, or unset it") {
		t.Errorf("TMPDIR set: %q", got)
	}
}
