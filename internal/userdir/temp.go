package userdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Temp is the temporary directory (os.TempDir: TMPDIR, else /tmp), made
// absolute, when this process can make files in it; else an error naming
// it and the fix. A TMPDIR left naming a folder since removed made a
// checkout, a review or a signed merge fail with "stat /x: no such file
// or directory".
func Temp() (string, error) {
	// absolute: what is made there is handed to processes in other folders
	dir, err := filepath.Abs(os.TempDir())
	if err != nil {
		return "", fmt.Errorf("temporary directory %s: %v; set TMPDIR to an absolute path", os.TempDir(), err)
	}
	fi, err := os.Stat(dir)
	switch {
	case err == nil && !fi.IsDir():
		err = unix.ENOTDIR
	case err == nil:
		err = unix.Access(dir, unix.W_OK|unix.X_OK)
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "", tempErr(dir, err, os.Getenv("TMPDIR") != "")
	}
	return dir, nil
}

// tempErr names the temporary directory that cannot be written and the
// fix: "or unset it" only for a TMPDIR that is set (a read-only /tmp in a
// container has none to unset).
func tempErr(dir string, err error, set bool) error {
	fix := "set TMPDIR to a folder you can write"
	if set {
		fix += ", or unset it"
	}
	return fmt.Errorf("temporary directory %s: %v; %s", dir, err, fix)
}

// MkdirTemp is os.MkdirTemp in Temp.
func MkdirTemp(pattern string) (string, error) {
	dir, err := Temp()
	if err != nil {
		return "", err
	}
	return os.MkdirTemp(dir, pattern)
}

// CreateTemp is os.CreateTemp in Temp.
func CreateTemp(pattern string) (*os.File, error) {
	dir, err := Temp()
	if err != nil {
		return nil, err
	}
	return os.CreateTemp(dir, pattern)
}
