package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/loopkit/loopkit/internal/wfile"
)

// WriteFileAtomic writes data to a temporary file in path's directory, syncs
// it, renames it over path and syncs the directory: readers see the old file
// or the new one, never half of either.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return writeRename(path, data, perm, true)
}

// ReplaceFile is WriteFileAtomic without the fsyncs: readers still never see
// half a file, but a power loss may lose it. For hints such as spool meta,
// where two fsyncs would double a short command's overhead.
func ReplaceFile(path string, data []byte, perm os.FileMode) error {
	return writeRename(path, data, perm, false)
}

func writeRename(path string, data []byte, perm os.FileMode, sync bool) error {
	dir := filepath.Dir(path)
	tmp, err := wfile.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if err := tmp.Chmod(perm); err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, bare(err))
	}
	if sync {
		if err := tmp.Sync(); err != nil {
			return fmt.Errorf("sync %s: %w", path, bare(err))
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(name, path); err != nil {
		return err
	}
	ok = true
	if !sync {
		return nil
	}
	if err := SyncDir(dir); err != nil {
		return &renamedError{err}
	}
	return nil
}

// renamedError is an error met once the new file was renamed in place.
type renamedError struct{ err error }

func (e *renamedError) Error() string { return e.err.Error() }
func (e *renamedError) Unwrap() error { return e.err }

// Renamed reports an error of WriteFileAtomic met after the new file took
// path's place (its directory's sync): every reader sees the new file, so
// what goes with it must stay, though a power loss may still lose it.
func Renamed(err error) bool {
	var r *renamedError
	return errors.As(err, &r)
}

// bare is the errno of a temporary file's error: the file is named by the
// name it was to replace, not by its random one.
func bare(err error) error {
	if pe := (*os.PathError)(nil); errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// SyncDir fsyncs a directory so that entries created or renamed in it persist.
func SyncDir(dir string) error { return wfile.SyncDir(dir) }

// SyncFolder makes a new iteration or attempt folder durable before its
// commit line is written: the folder (its entries) and its parent
// (iterations/ or attempts/, holding the folder's name). MkdirRun synced
// the run directory when it made the parent.
func SyncFolder(dir string) error {
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := SyncDir(d); err != nil {
			return err
		}
	}
	return nil
}
