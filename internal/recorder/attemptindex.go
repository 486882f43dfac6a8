package recorder

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"sync"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/store"
)

// attempts indexes the input digests of the attempts.jsonl this process
// read last, up to the offset it read: the driver's holder records an
// attempt per rate-limited, interrupted or over-time try, and reading the
// whole log again for each made every attempt of a long run cost more than
// the one before. Only the lines appended since are read.
var attempts attemptIndex

type attemptIndex struct {
	sync.Mutex
	path    string
	fi      os.FileInfo
	end     int64  // lines before this offset are indexed
	lastOff int64  // where the last indexed line starts
	last    []byte // that line: a log cut back and grown again differs there
	at      map[string]int64
}

// find returns the first attempt of path recorded from digest, if any.
func (x *attemptIndex) find(path, digest string) (*AttemptResult, error) {
	x.Lock()
	defer x.Unlock()
	if !x.current(path) {
		x.path, x.fi, x.end, x.lastOff, x.last, x.at = path, nil, 0, 0, nil, map[string]int64{}
	}
	end, _, err := store.ScanFrom(path, x.end, 0, func(_ int, off int64, line []byte) error {
		var a record.Attempt
		if json.Unmarshal(line, &a) == nil {
			if _, ok := x.at[a.InputDigest]; !ok {
				x.at[a.InputDigest] = off
			}
		}
		x.lastOff, x.last = off, append(x.last[:0], line...)
		return nil
	})
	if err != nil {
		x.path = ""
		return nil, err
	}
	x.end = end
	if fi, err := os.Lstat(path); err == nil {
		x.fi = fi
	} else {
		x.path = ""
	}
	off, ok := x.at[digest]
	if !ok {
		return nil, nil
	}
	found, err := attemptAt(path, off, digest)
	if found == nil && err == nil { // not the line indexed: read it all again
		x.path = ""
		return findAttemptIn(path, digest)
	}
	return found, err
}

// current tells whether the index is of path's file as it is: the same
// file, not shorter, with the last line indexed where it was.
func (x *attemptIndex) current(path string) bool {
	if x.path != path || x.fi == nil {
		return false
	}
	fi, err := os.Lstat(path)
	if err != nil || !os.SameFile(fi, x.fi) || fi.Size() < x.end {
		return false
	}
	if x.last == nil {
		return x.end == 0
	}
	f, err := store.OpenRegular(path)
	if err != nil {
		return false
	}
	defer f.Close()
	got := make([]byte, len(x.last)+1)
	if _, err := f.ReadAt(got, x.lastOff); err != nil {
		return false
	}
	return bytes.Equal(got[:len(x.last)], x.last) && got[len(x.last)] == '\n'
}

// attemptAt reads the line at off of path: the attempt when it is one
// recorded from digest, else nil.
func attemptAt(path string, off int64, digest string) (*AttemptResult, error) {
	var found *AttemptResult
	_, _, err := store.ScanFrom(path, off, 0, func(_ int, _ int64, line []byte) error {
		var a record.Attempt
		if json.Unmarshal(line, &a) == nil && a.InputDigest == digest {
			found = &AttemptResult{Attempt: &a, Line: append([]byte(nil), line...), Repeat: true}
		}
		return errStop
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, err
	}
	return found, nil
}

// findAttemptIn reads path whole for the first attempt recorded from digest.
func findAttemptIn(path, digest string) (*AttemptResult, error) {
	var found *AttemptResult
	err := store.ScanFile(path, func(_ int, line []byte) error {
		var a record.Attempt
		if json.Unmarshal(line, &a) == nil && a.InputDigest == digest {
			found = &AttemptResult{Attempt: &a, Line: append([]byte(nil), line...), Repeat: true}
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, err
	}
	return found, nil
}
