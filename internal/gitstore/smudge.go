package gitstore

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"os"
	"time"

	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/wfile"
)

// git trusts an index entry whose stat data matches the file, and a write
// that keeps the file's size and sets its mtime back (cp -p, tar, touch -r)
// changes only its ctime, which git compares to the second: a file written
// again in the second the snapshot read it would be recorded unchanged.
// git guards mtime alone (an entry as new as the index is re-read), so
// smudgeIndex does the same for ctime, as git smudges: the entry's size is
// zeroed, and the next git add hashes the file again.

// ctimeMargin is how much older than the index an entry's ctime must be to
// be trusted: the kernel stamps files with a clock that lags a tick.
const ctimeMargin = time.Second

// smudgeIndex zeroes the size of every entry of the index whose ctime is
// not older than the index (by ctimeMargin), and rewrites the index (new
// checksum, renamed over it, mtime kept) when any was. Best effort: an
// index it cannot read or parse is left as it is.
func smudgeIndex(index string) error {
	fi, err := os.Lstat(index)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	data, err := safefile.ReadFile(index, maxIndex)
	if err != nil {
		return nil
	}
	idLen := indexHashLen(data)
	if idLen == 0 {
		return nil
	}
	ents, _, err := parseIndex(data, idLen)
	if err != nil {
		return nil
	}
	since := fi.ModTime().Add(-ctimeMargin).Unix()
	changed := false
	for _, e := range ents {
		if e.mode&0o170000 == 0o160000 || e.assumed || e.skipped {
			continue // a submodule's commit, or an entry git add leaves alone
		}
		size := data[e.at+36 : e.at+40]
		if int64(binary.BigEndian.Uint32(data[e.at:])) >= since && binary.BigEndian.Uint32(size) != 0 {
			binary.BigEndian.PutUint32(size, 0)
			changed = true
		}
	}
	if !changed {
		return nil
	}
	n := len(data) - idLen
	if idLen == sha1.Size {
		sum := sha1.Sum(data[:n])
		copy(data[n:], sum[:])
	} else {
		sum := sha256.Sum256(data[:n])
		copy(data[n:], sum[:])
	}
	tmp := index + ".smudge"
	os.Remove(tmp)
	if err := wfile.WriteNew(tmp, data, 0o600); err != nil {
		return err
	}
	// the index's mtime is git's own racy test (see seedIndex)
	err = os.Chtimes(tmp, fi.ModTime(), fi.ModTime())
	if err == nil {
		err = os.Rename(tmp, index)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
