package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// statfs reads a file system's counts; a variable, so tests can run out
// of inodes without mounting one.
var statfs = unix.Statfs

// noSpaceHint is the fix for ENOSPC. A file system out of inodes says
// ENOSPC too while df shows it half empty: "free space on it" would send
// the person looking for bytes that are there.
func noSpaceHint(err error) string {
	if dir := noSpacePath(err); dir != "" && outOfInodes(dir) {
		dir = mountOf(dir)
		return "the file system of " + dir + " has no free inodes left (df -i " + dir + "): delete files on it (loop-clean), or give it more inodes"
	}
	return "the disk is full: free space on it"
}

// noSpacePath is the nearest existing folder of the file the write was
// refused for: where git wrote, the error's own path, else the last
// absolute path its text names before the strerror (git's "Unable to
// create '/s/x.lock'"); "" when it names none.
func noSpacePath(err error) string {
	path := ""
	var pe *fs.PathError
	var le *os.LinkError
	var git interface{ Where() string } // gitrun's: where git was writing
	switch {
	case errors.As(err, &git) && git.Where() != "":
		path = git.Where()
	case errors.As(err, &pe):
		path = pe.Path
	case errors.As(err, &le):
		path = le.New
	default:
		msg := err.Error()
		if i := strings.Index(strings.ToLower(msg), "no space left on device"); i >= 0 {
			msg = msg[:i]
		}
		for _, f := range strings.Fields(msg) {
			if f = strings.Trim(f, "'\":,;()"); strings.HasPrefix(f, "/") {
				path = f
			}
		}
	}
	if !filepath.IsAbs(path) {
		return ""
	}
	for path = filepath.Clean(path); ; path = filepath.Dir(path) {
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			return path
		}
		if path == filepath.Dir(path) {
			return ""
		}
	}
}

// mountOf is the top folder of dir's file system: what df -i lists.
func mountOf(dir string) string {
	for {
		parent := filepath.Dir(dir)
		if parent == dir || device(parent) != device(dir) {
			return dir
		}
		dir = parent
	}
}

func device(path string) uint64 {
	if st, err := os.Stat(path); err == nil {
		if sys, ok := st.Sys().(*syscall.Stat_t); ok {
			return uint64(sys.Dev)
		}
	}
	return 0
}

// outOfInodes says whether dir's file system has all but a few of its
// inodes in use (a few: what the failed write's cleanup freed since)
// while bytes are left: a tmpfs's nr_inodes, an ext4 of many small files.
func outOfInodes(dir string) bool {
	var st unix.Statfs_t
	if statfs(dir, &st) != nil || st.Files == 0 {
		return false
	}
	free := uint64(st.Bavail)
	if os.Geteuid() == 0 {
		free = uint64(st.Bfree) // root writes into the blocks kept back for it
	}
	inodes := uint64(st.Ffree)
	return (inodes < 64 || inodes*20 <= uint64(st.Files)) && free*20 > uint64(st.Blocks)
}
