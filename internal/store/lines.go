package store

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// The readers of the store's line files: one forward, one backward. Both
// pass on complete lines only: a final line without a newline is a write in
// progress or torn by a crash. Files are opened without following symlinks.

const lineChunk = 256 << 10

// firstChunk is a backward read's first: a few lines of a log.
const firstChunk = 8 << 10

// maxLogLine is the longest line of a store's log that is read: far past
// any record a writer makes (two streams at the 64 MiB inline cap, JSON
// escaped), so a longer one was put there by hand or by the agent. It is
// an error naming the line; a torn tail of any length costs no memory.
var maxLogLine int64 = 1 << 30

// ScanLines calls fn for every complete line of r (without its newline),
// numbered from 1. Lines may be up to 1 GiB.
func ScanLines(r io.Reader, fn func(lineNo int, line []byte) error) error {
	_, _, err := scan(r, nil, 0, 0, func(n int, _ int64, line []byte) error { return fn(n, line) })
	return err
}

// ScanFile is ScanLines over a file; a missing file has no lines.
func ScanFile(path string, fn func(lineNo int, line []byte) error) error {
	_, _, err := ScanFrom(path, 0, 0, func(n int, _ int64, line []byte) error { return fn(n, line) })
	return err
}

// ScanFrom calls fn with each complete line of the file starting at byte
// offset (numbered from lineNo+1, with the offset where it starts) and
// returns the offset just past the last complete line and its number, so a
// follower can resume there. A missing file has no lines.
func ScanFrom(path string, offset int64, lineNo int, fn func(lineNo int, off int64, line []byte) error) (int64, int, error) {
	f, err := openNoFollow(path, os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return offset, lineNo, nil
	}
	if err != nil {
		return offset, lineNo, err
	}
	defer f.Close()
	// a follower polls an idle log: nothing new costs no read buffer
	if fi, err := f.Stat(); err == nil && fi.Size() <= offset {
		return offset, lineNo, nil
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return offset, lineNo, err
	}
	end, n, err := scan(f, f, offset, lineNo, fn)
	if errors.Is(err, errLongLine) {
		err = fmt.Errorf("%s: %w", path, err)
	}
	return end, n, err
}

var errLongLine = errors.New("a line longer than loopkit writes")

// scan passes on the complete lines of r, which starts at byte offset.
// A line longer than a read chunk is not gathered as it is read: a torn
// tail (an agent's endless line) would be held whole, and grown by
// doubling, only to be dropped at EOF. With ra (r's file) it is read
// again once its newline is found, at its exact size.
func scan(r io.Reader, ra io.ReaderAt, offset int64, lineNo int, fn func(lineNo int, off int64, line []byte) error) (int64, int, error) {
	br := bufio.NewReaderSize(r, lineChunk)
	var long []byte
	var longN int64 // bytes of the current line before frag
	for {
		frag, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if ra == nil && longN+int64(len(frag)) <= maxLogLine {
				long = append(long, frag...)
			}
			longN += int64(len(frag))
			continue
		}
		if err == io.EOF {
			return offset, lineNo, nil // torn or empty tail: left for later
		}
		if err != nil {
			return offset, lineNo, err
		}
		line := frag[:len(frag)-1]
		if longN > 0 {
			n := longN + int64(len(line))
			if n > maxLogLine {
				return offset, lineNo, fmt.Errorf("%w: line %d (at byte %d) has %d bytes, over %d: move the run aside", errLongLine, lineNo+1, offset, n, maxLogLine)
			}
			if ra != nil {
				long = make([]byte, n)
				if _, err := ra.ReadAt(long, offset); err == io.EOF {
					return offset, lineNo, nil // cut since: no line after all
				} else if err != nil {
					return offset, lineNo, err
				}
				line = long
			} else {
				line = append(long, line...)
			}
			long, longN = nil, 0
		}
		lineNo++
		if err := fn(lineNo, offset, line); err != nil {
			return offset, lineNo, err
		}
		offset += int64(len(line)) + 1
	}
}

// ReadBackward calls fn with the complete lines of the file, newest first,
// with the offset where each starts, reading from the end in chunks so the
// cost follows what is read, not the file's size; fn returns false to stop.
// It returns the offset where the complete lines ended when it started. A
// missing file has no lines.
func ReadBackward(path string, fn func(off int64, line []byte) (bool, error)) (int64, error) {
	f, err := openNoFollow(path, os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return backward(f, fi.Size(), fn)
}

func backward(r io.ReaderAt, size int64, fn func(off int64, line []byte) (bool, error)) (int64, error) {
	end, err := CompleteEnd(r, size)
	if err != nil || end == 0 {
		return end, err
	}
	// rest is the file's bytes [pos, cut): unprocessed lines, the last ending in '\n'.
	pos := end
	var rest []byte
	// Most callers want the last line or few: the first read is small and
	// each next one twice as large, up to lineChunk. A fixed lineChunk read
	// the whole of a log under 256 KiB every time, so each of a run's
	// many reads of its tail grew with the run.
	next := int64(firstChunk)
	for {
		body := rest
		if len(body) > 0 {
			body = body[:len(body)-1]
		}
		j := bytes.LastIndexByte(body, '\n')
		if j < 0 && pos > 0 || len(rest) == 0 {
			n := min(next, pos)
			next = min(2*next, lineChunk)
			pos -= n
			chunk := make([]byte, n, n+int64(len(rest)))
			if _, err := r.ReadAt(chunk, pos); err != nil && err != io.EOF {
				return end, err
			}
			rest = append(chunk, rest...)
			continue
		}
		more, err := fn(pos+int64(j+1), body[j+1:])
		if err != nil || !more || j < 0 {
			return end, err
		}
		rest = rest[:j+1]
	}
}

// TailLines returns the last n complete lines of the file at path, oldest
// first; a missing file has no lines.
func TailLines(path string, n int) ([][]byte, error) {
	f, err := openNoFollow(path, os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return tailLines(f, fi.Size(), n)
}

func tailLines(r io.ReaderAt, size int64, n int) ([][]byte, error) {
	if n <= 0 {
		return nil, nil
	}
	var lines [][]byte
	_, err := backward(r, size, func(_ int64, line []byte) (bool, error) {
		lines = append(lines, line)
		return len(lines) < n, nil
	})
	if err != nil {
		return nil, err
	}
	for i, j := 0, len(lines)-1; i < j; i, j = i+1, j-1 {
		lines[i], lines[j] = lines[j], lines[i]
	}
	return lines, nil
}

// LineOf is the number of the line starting at byte off of the file (1 for
// the first), counted for an error found by a backward read; 0 if unknown.
func LineOf(path string, off int64) int {
	f, err := openNoFollow(path, os.O_RDONLY)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 1
	buf := make([]byte, lineChunk)
	for r := io.LimitReader(f, off); ; {
		k, err := r.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if err == io.EOF {
			return n
		}
		if err != nil {
			return 0
		}
	}
}

// OutOfSequence is the error for line lineNo of a numbered log (iterations,
// attempts: line k holds number k) holding number n instead, nil when it
// holds k. Only a hand edit (a committed line copied, moved or removed)
// puts a line out of sequence: no writer holding the lock ever does.
func OutOfSequence(file string, lineNo, n int) error {
	if n == lineNo {
		return nil
	}
	return fmt.Errorf("%s line %d: number %d where %d belongs: the log was edited by hand (a line copied, moved or removed); move the run aside", file, lineNo, n, lineNo)
}
