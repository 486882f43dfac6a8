package gitstore

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/adler32"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/loopkit/loopkit/internal/wfile"
)

// commitIdentity is who the store's commits are by.
const commitIdentity = "loopkit <loopkit@localhost>"

// writeCommit writes the commit of tree (with parent, when not "") into
// the loose object directory objects, as `git commit-tree` would, without
// a git process: every iteration writes two. The ids are checked, never
// looked up; the hash is the one their length names (SHA-1 or SHA-256).
func writeCommit(objects, tree, parent, message string, when time.Time) (string, error) {
	if !isObjectID(tree) || parent != "" && (!isObjectID(parent) || len(parent) != len(tree)) {
		return "", fmt.Errorf("commit: bad object id (tree %q, parent %q)", tree, parent)
	}
	var body bytes.Buffer
	fmt.Fprintf(&body, "tree %s\n", tree)
	if parent != "" {
		fmt.Fprintf(&body, "parent %s\n", parent)
	}
	stamp := fmt.Sprintf("%s %d +0000", commitIdentity, when.Unix())
	fmt.Fprintf(&body, "author %s\ncommitter %s\n\n%s\n", stamp, stamp, message)
	h := sha1.New()
	if len(tree) == 64 {
		h = sha256.New()
	}
	return writeLoose(objects, h, "commit", body.Bytes())
}

// writeLoose stores one object as git does: zlib of "<kind> <size>\0" and
// the data, at objects/<2 hex>/<rest>, written to a temporary file first
// and linked into place, so a kill leaves no partial object. The file and
// its fan-out directory are fsynced: a power cut after the iteration's
// commit line would otherwise leave it empty under its name, and every
// later write takes a name that is there for the object (git's too), so
// the damage would reach the trees recorded after the reboot. A fan-out
// directory that is not a real directory (a symlink planted in the store)
// is refused.
func writeLoose(objects string, h hash.Hash, kind string, data []byte) (string, error) {
	header := fmt.Sprintf("%s %d\x00", kind, len(data))
	h.Write([]byte(header))
	h.Write(data)
	id := hex.EncodeToString(h.Sum(nil))
	dir := filepath.Join(objects, id[:2])
	path := filepath.Join(dir, id[2:])
	if _, err := os.Lstat(path); err == nil {
		return id, nil // content-addressed: already there is already right
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		if err == nil {
			err = fmt.Errorf("%s is not a directory", dir)
		}
		return "", err
	}
	z := zlibStored(append([]byte(header), data...))
	tmp, err := wfile.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(z)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o400) // git's loose objects are read-only
	}
	if err != nil {
		return "", err
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		// a file system without hard links: the rename is atomic too
		if err := os.Rename(tmp.Name(), path); err != nil {
			return "", err
		}
	}
	return id, wfile.SyncDir(dir)
}

// zlibStored is data as a zlib stream of stored (uncompressed) deflate
// blocks, what git writes with core.looseCompression 0: a tree or a
// commit is mostly object ids, which do not compress, and compress/zlib
// allocates about 800 KB of state per writer, page faults that cost a
// short-lived command more than the bytes saved.
func zlibStored(data []byte) []byte {
	const maxBlock = 65535
	sum := adler32.Checksum(data)
	out := make([]byte, 0, 2+len(data)+5*(len(data)/maxBlock+1)+4)
	out = append(out, 0x78, 0x01) // deflate, 32 KiB window, no dictionary, level "fastest"
	for first := true; first || len(data) > 0; first = false {
		n := min(len(data), maxBlock)
		final := byte(0)
		if n == len(data) {
			final = 1
		}
		out = append(out, final) // BFINAL, BTYPE 00 (stored)
		out = binary.LittleEndian.AppendUint16(out, uint16(n))
		out = binary.LittleEndian.AppendUint16(out, ^uint16(n))
		out = append(out, data[:n]...)
		data = data[n:]
	}
	return binary.BigEndian.AppendUint32(out, sum)
}
