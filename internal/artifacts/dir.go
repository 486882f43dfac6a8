// Package artifacts writes a run's derived copies outside the store: the
// bin/loop layout (log_dir, and the global mirror of artifact_mode=mirror)
// and the verification artifacts of AGENT_ARTIFACT_DIR. The store stays
// the source of truth: every copy is rebuilt from it, so a copy lost or cut
// short by a kill is written again by the next recording, and a file lost
// from a copy by a repair (see Rebuild).
//
// The agent can write into these directories too. A copy is written
// through an os.Root opened on the directory resolved once: no link below
// it is followed out of it, and files are replaced (a temporary file
// renamed over the name), never written through.
package artifacts

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/loopkit/loopkit/internal/userdir"
)

// noFollow opens never through a final link, never waiting on a FIFO.
const noFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// dir is a copy directory: a root no name below it can leave.
type dir struct {
	root *os.Root
	path string // for messages
}

// openDir makes base (0700, parents too) and opens base/sub... as a root,
// each sub a plain name made inside the one before and refused unless it
// is a real directory.
func openDir(base string, sub ...string) (*dir, error) {
	if !filepath.IsAbs(base) {
		return nil, fmt.Errorf("%s: not an absolute path", base)
	}
	if err := os.MkdirAll(base, 0o700); err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(base) // the person's path may be a link, once
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(real)
	if err != nil {
		return nil, err
	}
	path := base
	for _, name := range sub {
		path = filepath.Join(path, name)
		next, err := subdir(root, name, path)
		root.Close()
		if err != nil {
			return nil, err
		}
		root = next
	}
	d := &dir{root: root, path: path}
	// A copy in the work tree (log_dir is relative to it) is loopkit's, not
	// the agent's work: ignored, it stays out of the iterations' snapshots.
	if !d.has(".gitignore") {
		if err := d.writeBytes(".gitignore", []byte("*\n")); err != nil {
			d.Close()
			return nil, err
		}
	}
	return d, nil
}

// subdir makes name in r (when missing) and opens it: a link or a file in
// its place is refused, never followed.
func subdir(r *os.Root, name, path string) (*os.Root, error) {
	if strings.ContainsRune(name, '/') || name == "." || name == ".." || name == "" {
		return nil, fmt.Errorf("%s: bad directory name", path)
	}
	if err := r.Mkdir(name, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	fi, err := r.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory (%s); move it away", path, fi.Mode().Type())
	}
	// another user's (one who made runs/ or run-<id> first in a folder a
	// group shares, or swapped the run's for theirs) could read what is
	// appended there (combined.log) and swap the rest: root's is trusted
	if id, ok := userdir.Owner(fi); ok && id != userdir.UID() && id != 0 {
		return nil, fmt.Errorf("%s belongs to %s, not to %s: the run's copies are not written there; move it away, or name a folder of yours", path, userdir.Who(id), userdir.Who(userdir.UID()))
	}
	return r.OpenRoot(name)
}

func (d *dir) Close() error { return d.root.Close() }

func (d *dir) sub(name string) (*dir, error) {
	path := filepath.Join(d.path, name)
	r, err := subdir(d.root, name, path)
	if err != nil {
		return nil, err
	}
	return &dir{root: r, path: path}, nil
}

// has reports whether name is a regular file already (a copy written once).
func (d *dir) has(name string) bool {
	fi, err := d.root.Lstat(name)
	return err == nil && fi.Mode().IsRegular()
}

// write replaces name with what fill writes: a temporary file made new
// (O_EXCL: never an existing file or link), synced, renamed over name,
// then the directory synced. A kill leaves the old file or the new one,
// and the temporary file, which the next write of name (the copy's
// progress is behind it) removes: one writer at a time copies a run, so
// its name is fixed and no directory listing is needed to find it.
func (d *dir) write(name string, fill func(w io.Writer) error) error {
	tmp := "." + name + ".tmp-w"
	d.root.Remove(tmp) // a killed writer's, or a link: never followed
	f, err := d.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			d.root.Remove(tmp)
		}
	}()
	if err := fill(f); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Join(d.path, name), err)
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := d.root.Rename(tmp, name); err != nil {
		return err
	}
	ok = true
	return d.sync()
}

func (d *dir) writeBytes(name string, data []byte) error {
	return d.write(name, func(w io.Writer) error { _, err := w.Write(data); return err })
}

// sync fsyncs the directory, so that renames in it persist.
func (d *dir) sync() error {
	f, err := d.root.Open(".")
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// dropTemps removes temporary files a killed writer left, whatever their
// name (earlier writers put their pid in it): for a copy without progress,
// or checked whole.
func (d *dir) dropTemps() {
	f, err := d.root.Open(".")
	if err != nil {
		return
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	for _, n := range names {
		if strings.HasPrefix(n, ".") && strings.Contains(n, ".tmp-") {
			d.root.Remove(n)
		}
	}
}

// readEnd reads at most limit bytes of the end of the copy's file name.
func (d *dir) readEnd(name string, limit int64) ([]byte, error) {
	f, err := d.root.OpenFile(name, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file; move it away", filepath.Join(d.path, name))
	}
	off := max(fi.Size()-limit, 0)
	return io.ReadAll(io.NewSectionReader(f, off, fi.Size()-off))
}
