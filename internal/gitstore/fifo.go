package gitstore

import (
	"io/fs"
	"path/filepath"
	"syscall"
	"time"
)

// git add opens each folder's .gitignore and .gitattributes to read them,
// and opening a FIFO waits for a writer: a FIFO the agent named so held
// the snapshot, and the loop, forever. While git add runs past a moment,
// unblockIgnores looks for such FIFOs in the work tree and opens each for
// writing, then closes it: git reads an empty file (a FIFO holds no
// content, and git records none), so the iteration's changes are still
// all recorded.

// unblockIgnores watches the work tree at top until stop is closed.
func unblockIgnores(top string, stop <-chan struct{}) {
	wait := 500 * time.Millisecond
	for {
		select {
		case <-stop:
			return
		case <-time.After(wait):
		}
		openIgnoreFIFOs(top, stop)
		wait = min(2*wait, 8*time.Second) // a big tree is walked seldom
	}
}

// openIgnoreFIFOs opens, without blocking, every FIFO git reads (see
// gitReads) under top (links not followed, .git folders and the store left out):
// a reader waiting on one is let through, to an empty file.
func openIgnoreFIFOs(top string, stop <-chan struct{}) {
	store := filepath.Join(top, StoreName)
	filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
		select {
		case <-stop:
			return filepath.SkipAll
		default:
		}
		if err != nil {
			return nil
		}
		if d.IsDir() && path != top && (d.Name() == ".git" || path == store) {
			return filepath.SkipDir
		}
		if d.Type()&fs.ModeNamedPipe != 0 && gitReads(d.Name()) {
			// ENXIO when nobody reads it: nothing to let through
			if fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0); err == nil {
				syscall.Close(fd)
			}
		}
		return nil
	})
}

// gitReads tells whether git add opens a work tree file of that name to
// read it, whatever it is.
func gitReads(name string) bool {
	return name == ".gitignore" || name == ".gitattributes" || name == ".gitmodules"
}
