package runconfig

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"
)

// Unkept says why a run cannot keep path (a workspace, prompt or store),
// "" when it can: JSON records turn bytes that are not UTF-8 into U+FFFD,
// and the driver's answers are key=value lines. A run started there
// failed at its first step, naming a folder that does not exist.
func Unkept(path string) string {
	switch {
	case !utf8.ValidString(path):
		return "not valid UTF-8, which a run's JSON records cannot keep"
	case strings.Contains(path, "\n"):
		return "a newline in the path, which the driver's key=value lines cannot carry"
	}
	return ""
}

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
