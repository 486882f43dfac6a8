package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/wfile"
)

// AppendLine appends one whole line to an append-only NDJSON file and fsyncs
// it. The caller holds the run's append lock. A torn tail left by a killed
// writer is set aside first; a failed write (ENOSPC, EIO) is cut back off so
// the file never keeps a partial record.
func AppendLine(path string, line []byte) error { return AppendLines(path, line) }

// AppendLines is AppendLine for several lines at once: one write and one
// fsync, where a line each cost an fsync. A crash leaves a prefix of them
// and at most a torn tail, as one AppendLine after another could.
func AppendLines(path string, lines ...[]byte) error {
	for _, line := range lines {
		if bytes.IndexByte(line, '\n') >= 0 {
			return fmt.Errorf("append %s: record contains a newline", filepath.Base(path))
		}
	}
	line := bytes.Join(lines, []byte{'\n'})
	if _, err := RepairTail(path); err != nil {
		return err
	}
	_, statErr := os.Stat(path)
	created := errors.Is(statErr, os.ErrNotExist)
	f, err := openNoFollow(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return fmt.Errorf("append %s: %w", filepath.Base(path), err)
	}
	defer f.Close()
	return appendTo(&wfile.File{File: f}, path, line, created)
}

// appendFile is the file an append writes to; tests inject failures through it.
type appendFile interface {
	io.Writer
	Stat() (os.FileInfo, error)
	Truncate(int64) error
	Sync() error
}

func appendTo(f appendFile, path string, line []byte, created bool) error {
	if created { // the new name must survive before any record in it counts
		if err := SyncDir(filepath.Dir(path)); err != nil {
			return err
		}
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	size := fi.Size()
	buf := make([]byte, 0, len(line)+1)
	buf = append(append(buf, line...), '\n')
	n, err := f.Write(buf)
	if err == nil && n != len(buf) {
		err = io.ErrShortWrite
	}
	if err == nil {
		if err = f.Sync(); err != nil {
			err = fmt.Errorf("sync: %w", err)
		}
	}
	if err != nil {
		// not durable, so not a commit: cut it back off, the caller says "not stored"
		if terr := f.Truncate(size); terr != nil {
			return fmt.Errorf("append %s: %w (and could not cut back the partial line: %v)", filepath.Base(path), err, terr)
		}
		return fmt.Errorf("append %s: %w", filepath.Base(path), err)
	}
	return nil
}

// RepairTail copies a final line without a newline (a writer killed mid-line)
// to <path>.torn-<ms> and truncates it off. The caller holds the append lock.
func RepairTail(path string) (bool, error) {
	f, err := openNoFollow(path, os.O_RDWR)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return false, err
	}
	end, err := CompleteEnd(f, fi.Size())
	if err != nil || end == fi.Size() {
		return false, err
	}
	if err := setAside(f, path, ".torn-", end, fi.Size()); err != nil {
		return false, err
	}
	return true, nil
}

// CompleteEnd returns the offset just past the last newline of a file of the
// given size (0 when it has none), reading backwards in chunks: where the
// committed lines end.
func CompleteEnd(r io.ReaderAt, size int64) (int64, error) {
	// a log's last byte is most often its newline: a small first read
	chunk := int64(512)
	for end := size; end > 0; chunk = min(2*chunk, 64<<10) {
		start := max(end-chunk, 0)
		b := make([]byte, end-start)
		if _, err := r.ReadAt(b, start); err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}

// LastCommit returns the last committed line of an append-only log whose
// lines are numbered by field (1, 2, ... one per line), after setting aside
// what is not a commit: a torn tail, and final lines whose number is not a
// positive integer exactly one more than the line before (1 on the first
// line). Such a line was never appended by a writer holding the lock, so it
// is copied to <path>.bad-<ms> and cut off, and must not decide the next
// number or which folders are leftovers. aside counts the lines set aside.
// A line before the last that is not JSON at all means the log was damaged
// by hand: an error, since nothing can be decided from it. The caller holds
// the append lock.
func LastCommit(path, field string) (line []byte, n, aside int, err error) {
	if _, err := RepairTail(path); err != nil {
		return nil, 0, 0, err
	}
	f, err := openNoFollow(path, os.O_RDWR)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, 0, nil
	}
	if err != nil {
		return nil, 0, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, 0, err
	}
	line, n, end, err := lastCommit(f, path, fi.Size(), field)
	if err != nil || end == fi.Size() {
		return line, n, 0, err
	}
	// the lines after it, set aside at once: one file, one sync
	aside, err = countLines(f, end, fi.Size())
	if err == nil {
		err = setAside(f, path, ".bad-", end, fi.Size())
	}
	if err != nil {
		return nil, 0, 0, err
	}
	return line, n, aside, nil
}

// countLines counts the newlines in bytes [start, end) of r.
func countLines(r io.ReaderAt, start, end int64) (int, error) {
	n := 0
	err := ScanLines(io.NewSectionReader(r, start, end-start), func(int, []byte) error { n++; return nil })
	return n, err
}

// PeekCommit is LastCommit for a reader, which holds no lock and never
// writes: a torn tail (a write in progress) and final lines out of
// sequence are passed over, not set aside, so the log is left as it is
// for its writer to repair, and a read-only store reads the same.
func PeekCommit(path, field string) (line []byte, n int, err error) {
	f, err := openNoFollow(path, os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	line, n, _, err = lastCommit(f, path, fi.Size(), field)
	return line, n, err
}

// lastCommit finds the last commit of the first size bytes of a log (a
// torn tail left out): the last line whose number is one more than the
// line before's (1 on the first line), and end, where its line ends (0
// with none). Lines after it that are no commits are passed over in the
// same backward read, however many the agent appended.
func lastCommit(f *os.File, path string, size int64, field string) (line []byte, n int, end int64, err error) {
	var next []byte // the line after the one read: the candidate
	var nextAt int64
	_, err = backward(f, size, func(at int64, l []byte) (bool, error) {
		if next != nil {
			prev, ok, isJSON := lineNumber(l, field)
			if !isJSON {
				return false, fmt.Errorf("%s: the line before the last is not JSON: the log is damaged; move it aside to start a new run", path)
			}
			if got, gotOK, _ := lineNumber(next, field); ok && gotOK && got == prev+1 {
				line, n, end = next, got, nextAt+int64(len(next))+1
				return false, nil
			}
		}
		next, nextAt = l, at
		return true, nil
	})
	if err != nil || line != nil {
		return line, n, end, err
	}
	if next != nil && nextAt == 0 {
		if got, ok, _ := lineNumber(next, field); ok && got == 1 {
			return next, 1, int64(len(next)) + 1, nil
		}
	}
	return nil, 0, 0, nil
}

// lineNumber reads field of a JSON line as a positive integer.
func lineNumber(line []byte, field string) (n int, ok, isJSON bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return 0, false, false
	}
	n, err := strconv.Atoi(string(m[field]))
	return n, err == nil && n > 0, true
}

// setAside copies bytes [start, end) of the log to <path><tag><ms>, cuts
// them off and syncs.
func setAside(f *os.File, path, tag string, start, end int64) error {
	b := make([]byte, end-start)
	if _, err := f.ReadAt(b, start); err != nil && err != io.EOF {
		return err
	}
	aside := path + tag + strconv.FormatInt(time.Now().UnixMilli(), 10)
	for i := 2; ; i++ { // two set aside within a millisecond keep both
		if _, err := os.Lstat(aside); errors.Is(err, os.ErrNotExist) {
			break
		}
		aside = path + tag + strconv.FormatInt(time.Now().UnixMilli(), 10) + "-" + strconv.Itoa(i)
	}
	if err := WriteFileAtomic(aside, b, FileMode); err != nil {
		return fmt.Errorf("set aside the end of %s: %w", filepath.Base(path), err)
	}
	if err := f.Truncate(start); err != nil {
		return err
	}
	return f.Sync()
}

// Size is the size of a log of the store, to cut back to with CutBack (0
// when it is not there yet).
func Size(path string) int64 {
	fi, err := os.Lstat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// CutBack cuts off what was appended to a log past size (lines of a change
// that was not made), and syncs. The caller holds the append lock.
func CutBack(path string, size int64) error {
	f, err := openNoFollow(path, os.O_WRONLY)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() <= size {
		return err
	}
	if err := f.Truncate(size); err != nil {
		return err
	}
	return f.Sync()
}

// EndsLineAt reports whether the log at path still ends a line at off
// (off > 0): a reader that stopped there can go on. False once it was cut
// back below off (CutBack) or its byte there is no longer a newline.
func EndsLineAt(path string, off int64) bool {
	f, err := openNoFollow(path, os.O_RDONLY)
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	defer f.Close()
	b := make([]byte, 1)
	n, _ := f.ReadAt(b, off-1)
	return n == 1 && b[0] == '\n'
}

// OpenRegular opens a file of the store for reading, refusing a symlink and
// anything but a regular file: for readers outside this package.
func OpenRegular(path string) (*os.File, error) { return openNoFollow(path, os.O_RDONLY) }

// openNoFollow opens a file of the store, refusing a symlink, and anything
// but a regular file (a FIFO would block a reader forever). A log to be
// written that has another name too (a hard link the agent made, maybe to
// a file of the person's) is first copied to a file of its own, renamed
// over the name: the other file is never written.
func openNoFollow(path string, flag int) (*os.File, error) {
	f, err := safefile.OpenFile(path, flag, FileMode)
	if !errors.Is(err, safefile.ErrLinked) {
		return f, err
	}
	data, err := safefile.ReadFile(path, maxUnlink)
	if err != nil {
		return nil, err
	}
	if err := WriteFileAtomic(path, data, FileMode); err != nil {
		return nil, err
	}
	return safefile.OpenFile(path, flag, FileMode)
}

// maxUnlink caps the log openNoFollow copies away from a hard link.
const maxUnlink = 1 << 30
