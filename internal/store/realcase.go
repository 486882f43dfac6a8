package store

import (
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// RealCase is the absolute path with each name spelled as its folder
// lists it. On a file system that ignores case (macOS, exFAT) ~/Code/app
// and ~/code/App are one folder, and what loopkit keys by a path (a work
// tree's lock, a run's kept settings) must get one key. A name whose
// other case is not there costs one lstat: on a file system that minds
// case nothing changes.
func RealCase(path string) string {
	if !filepath.IsAbs(path) {
		return path
	}
	out := string(filepath.Separator)
	for _, name := range strings.Split(filepath.Clean(path), string(filepath.Separator)) {
		if name != "" {
			out = filepath.Join(out, realName(out, name))
		}
	}
	return out
}

// lstat and readNames are the file system's (a test stands in for one
// that ignores case).
var lstat, readNames = os.Lstat, readDirNames

func readDirNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// realName is name as dir lists it, name itself when dir lists it so or
// no other spelling is there.
func realName(dir, name string) string {
	other := strings.Map(func(r rune) rune {
		if unicode.IsUpper(r) {
			return unicode.ToLower(r)
		}
		return unicode.ToUpper(r)
	}, name)
	if other == name {
		return name
	}
	if _, err := lstat(filepath.Join(dir, other)); err != nil {
		return name
	}
	names, err := readNames(dir)
	if err != nil {
		return name
	}
	real := name
	for _, n := range names {
		if n == name {
			return name
		}
		if strings.EqualFold(n, name) {
			real = n
		}
	}
	return real
}
