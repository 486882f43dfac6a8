package runconfig

import (
	"errors"
	"io/fs"
	"os"
)

// PathProblem says what is wrong with a setting naming a file (dir false)
// or a directory (dir true), in the words of an error line: "" when
// nothing is.
func PathProblem(path string, dir bool) string {
	fi, err := os.Stat(path)
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if dir {
			return "no such directory"
		}
		return "no such file"
	case errors.As(err, &pe):
		return pe.Err.Error()
	case err != nil:
		return err.Error()
	case dir && !fi.IsDir():
		return "not a directory"
	case !dir && fi.IsDir():
		return "a directory, not a file"
	}
	return ""
}
