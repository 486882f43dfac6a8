package cli

import (
	"errors"
	"io/fs"
	"os"
)

// Getwd is the current directory, for the commands that find the store
// from it. A shell left in a folder that was removed (or moved where it
// cannot be named) gets the fix, not getcwd's errno.
func Getwd() (string, error) {
	cwd, err := os.Getwd()
	if errors.Is(err, fs.ErrNotExist) {
		return "", Failf("the current directory was removed: cd to a folder that exists")
	}
	if err != nil {
		return "", Failf("current directory: %w", err)
	}
	return cwd, nil
}
