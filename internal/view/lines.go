package view

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"

	"github.com/loopkit/loopkit/internal/store"
)

const chunkSize = 256 << 10

// readFrom calls fn with each complete line of the file starting at offset
// (numbered from lineNo+1) and returns the offset just past the last complete
// line and its number. A final line without a newline (a write in progress,
// or torn by a crash) is left for later. A missing file has no lines.
func readFrom(path string, offset int64, lineNo int, fn func(lineNo int, off int64, line []byte) error) (int64, int, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return offset, lineNo, nil
	}
	if err != nil {
		return offset, lineNo, err
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return offset, lineNo, err
	}
	br := bufio.NewReaderSize(f, chunkSize)
	var long []byte
	for {
		frag, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, frag...)
			continue
		}
		if err == io.EOF {
			return offset, lineNo, nil
		}
		if err != nil {
			return offset, lineNo, err
		}
		line := frag[:len(frag)-1]
		if long != nil {
			line = append(long, line...)
			long = nil
		}
		lineNo++
		if err := fn(lineNo, offset, line); err != nil {
			return offset, lineNo, err
		}
		offset += int64(len(line)) + 1
	}
}

// readBackward calls fn with the complete lines of the file, newest first,
// reading from the end in chunks so the cost follows what is read, not the
// file's size; fn returns false to stop. It returns the offset where the
// committed lines ended when it started. A missing file has no lines.
func readBackward(path string, fn func(off int64, line []byte) (bool, error)) (int64, error) {
	f, err := os.Open(path)
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
	end, err := store.CompleteEnd(f, fi.Size())
	if err != nil || end == 0 {
		return end, err
	}
	// rest is the file's bytes [pos, cut): unprocessed lines, the last ending in '\n'.
	pos := end
	var rest []byte
	for {
		body := rest
		if len(body) > 0 {
			body = body[:len(body)-1]
		}
		j := bytes.LastIndexByte(body, '\n')
		if j < 0 && pos > 0 || len(rest) == 0 {
			n := min(int64(chunkSize), pos)
			pos -= n
			chunk := make([]byte, n, n+int64(len(rest)))
			if _, err := f.ReadAt(chunk, pos); err != nil && err != io.EOF {
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

// LineOf is the number of the line starting at byte off of the file (1 for
// the first), counted for an error found by a backward read; 0 if unknown.
func LineOf(path string, off int64) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 1
	buf := make([]byte, chunkSize)
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
