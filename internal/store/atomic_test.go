package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/loopkit/loopkit/internal/wfile"
)

// A whole file the disk refuses is named once, by its own name: the
// temporary file's random name (.run.json.tmp-3916729302) said nothing a
// person could use and doubled the line. The errno stays wrapped.
func TestWriteFileAtomicRefusedNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.json")
	for _, op := range []wfile.Op{wfile.Write, wfile.Sync} {
		restore := wfile.SetFault(func(o wfile.Op, p string) error {
			if o == op && strings.Contains(p, ".tmp-") {
				return syscall.ENOSPC
			}
			return nil
		})
		err := WriteFileAtomic(path, []byte("{}\n"), 0o600)
		restore()
		if !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("%s: %v, want ENOSPC wrapped", op, err)
		}
		if want := string(op) + " " + path + ": no space left on device"; err.Error() != want {
			t.Errorf("%s: %q, want %q", op, err, want)
		}
		if left, _ := filepath.Glob(path + "*"); len(left) > 0 {
			t.Errorf("%s: left %v", op, left)
		}
	}
	os.Remove(path)
}
