package artifacts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"

	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/store"
)

// progress is how far one copy directory has got in the store's logs.
// It is written last, after what it counts: a kill leaves it behind the
// copy (the next writer checks again what it did not count), never ahead.
type progress struct {
	Iterations mark `json:"iterations"`
	Attempts   mark `json:"attempts"`
	Rewrites   int  `json:"rewrites"` // prompt.rewrite.N.txt copied
}

const progressFile = ".copied.json"

// progress is how far the copy in d got; none when it says nothing
// readable, or for a copy checked whole (a repair).
func (d *dir) progress(s *source) progress {
	var p progress
	if s.full {
		return p
	}
	data, err := d.readEnd(progressFile, 4096)
	if err != nil || json.Unmarshal(data, &p) != nil || p.Rewrites < 0 {
		return progress{}
	}
	return p
}

func (d *dir) setProgress(p progress) error {
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return d.writeBytes(progressFile, data)
}

// appended counts the bytes appendCopy reads from the store (a test's
// seam).
var appended atomic.Int64

// appendCopy brings the copy name up to date with the store's line file
// src, which only grows: the complete lines past the copy's length are
// appended (a torn line of the store's is not copied: a repair may cut
// it). A copy that is no prefix of src is written again whole.
func (d *dir) appendCopy(name, src string) error {
	in, err := safefile.Open(src)
	if os.IsNotExist(err) {
		return d.writeBytes(name, nil)
	}
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	size, err := store.CompleteEnd(in, fi.Size())
	if err != nil {
		return err
	}
	f, err := d.openAppend(name)
	if err != nil {
		return err
	}
	defer f.Close()
	cfi, err := f.Stat()
	if err != nil {
		return err
	}
	have := cfi.Size()
	if have > size || !sameEnd(f, in, have) {
		have = 0
	}
	if err := f.Truncate(have); err != nil {
		return err
	}
	n, err := io.Copy(io.NewOffsetWriter(f, have), io.NewSectionReader(in, have, size-have))
	appended.Add(n)
	if err != nil {
		return fmt.Errorf("write %s: %w", filepath.Join(d.path, name), err)
	}
	return f.Sync()
}

// sameEnd tells whether the last bytes before n are the same in a and b.
func sameEnd(a, b io.ReaderAt, n int64) bool {
	from := max(n-tailCheck, 0)
	x, y := make([]byte, n-from), make([]byte, n-from)
	if _, err := a.ReadAt(x, from); err != nil {
		return false
	}
	if _, err := b.ReadAt(y, from); err != nil {
		return false
	}
	return bytes.Equal(x, y)
}

// openAppend opens the copy's file name to be appended to: never through
// a link, never a FIFO; a symlink or a file with another name (a hard link
// planted there) is unlinked first, so the copy starts again and what the
// link names is never written.
func (d *dir) openAppend(name string) (*os.File, error) {
	for range 2 {
		if fi, err := d.root.Lstat(name); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			if err := d.root.Remove(name); err != nil {
				return nil, err
			}
		}
		f, err := d.root.OpenFile(name, os.O_RDWR|os.O_CREATE|noFollow, 0o600)
		if err != nil {
			return nil, err
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		if !fi.Mode().IsRegular() {
			f.Close()
			return nil, fmt.Errorf("%s is not a regular file; move it away", filepath.Join(d.path, name))
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Nlink <= 1 {
			return f, nil
		}
		f.Close()
		if err := d.root.Remove(name); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("%s keeps coming back as a link; move it away", filepath.Join(d.path, name))
}
