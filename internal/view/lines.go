package view

import "github.com/loopkit/loopkit/internal/store"

// The store owns the readers of its line files; these are its names here.

// readFrom is store.ScanFrom.
func readFrom(path string, offset int64, lineNo int, fn func(lineNo int, off int64, line []byte) error) (int64, int, error) {
	return store.ScanFrom(path, offset, lineNo, fn)
}

// readBackward is store.ReadBackward.
func readBackward(path string, fn func(off int64, line []byte) (bool, error)) (int64, error) {
	return store.ReadBackward(path, fn)
}

// LineOf is store.LineOf.
func LineOf(path string, off int64) int { return store.LineOf(path, off) }
