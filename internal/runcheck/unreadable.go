package runcheck

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/loopkit/loopkit/internal/gitrun"
	"github.com/loopkit/loopkit/internal/quote"
)

// canRead is access(2) for reading; root reads every file, so a test
// running as root replaces it.
var canRead = func(path string) error { return unix.Access(path, unix.R_OK) }

// Unreadable says why the snapshots of the work tree at top would all
// fail: a file git adds (tracked, or untracked and not ignored) that this
// user cannot read, as another user's 0600 file a container left. git add
// then fails whole, and every iteration of the run would record "files
// unknown" and no changes. A folder git cannot read is skipped by git add
// with a warning: only regular files count.
func Unreadable(top string) error {
	cmd := gitrun.Cmd{Dir: top}.Command("ls-files", "-z", "--cached", "--others", "--exclude-standard")
	out, err := cmd.Output()
	if err != nil {
		return nil // GitReadable has said what git refuses
	}
	var bad []string
	for _, name := range bytes.Split(out, []byte{0}) {
		if len(name) == 0 {
			continue
		}
		path := filepath.Join(top, filepath.FromSlash(string(name)))
		fi, err := os.Lstat(path)
		if err != nil || !fi.Mode().IsRegular() {
			continue // not there (sparse), a link, a FIFO: git reads none of them
		}
		if err := canRead(path); errors.Is(err, fs.ErrPermission) {
			bad = append(bad, quote.Line(string(name)))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	more := ""
	if len(bad) > 3 {
		more = fmt.Sprintf(" and %d more", len(bad)-3)
		bad = bad[:3]
	}
	return fmt.Errorf("git cannot read %s%s in %s (not readable by this user): no iteration's changes could be recorded; "+
		"make it readable (chmod, chown), or list it in .git/info/exclude", strings.Join(bad, ", "), more, top)
}
