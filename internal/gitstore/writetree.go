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
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/loopkit/loopkit/internal/safefile"
)

// errIndexUnsupported is an index the Go tree writer leaves to `git
// write-tree`: a split or sparse index, an unmerged or intent-to-add
// entry, a version or layout it does not know.
var errIndexUnsupported = errors.New("index left to git write-tree")

// maxIndex caps the index read into memory (see maxSeedIndex).
const maxIndex = maxSeedIndex

// indexEntry is one stage-0 entry of an index: its path, mode and object.
type indexEntry struct {
	path string
	mode uint32
	id   []byte // raw object id
	// git add leaves these alone, whatever the file holds: assume-unchanged
	// (CE_VALID) and skip-worktree
	assumed, skipped bool
	at               int // the entry's offset in the index (its stat data)
}

// cacheTree is the index's TREE extension: the tree id of each directory
// whose entries have not changed since git last wrote trees from it
// ("" directory is the top), absent for an invalidated one.
type cacheTree map[string][]byte

// writeTreeFromIndex writes the trees of the index at index, as `git
// write-tree` does after `git add -A`, without a git process (each costs
// milliseconds of every iteration, and write-tree rewrites the index).
// New trees go loose into objects; a tree found loose in dirs (objects
// and its alternates) is not written again, and a directory the index's
// cache tree still holds is taken from it, as git takes it. Blobs are the
// index's own, as git add left them. errIndexUnsupported: ask git.
func writeTreeFromIndex(index, objects string, dirs []string) (string, error) {
	data, err := safefile.ReadFile(index, maxIndex)
	if err != nil {
		return "", err
	}
	idLen := indexHashLen(data)
	if idLen == 0 {
		return "", fmt.Errorf("%w: checksum", errIndexUnsupported)
	}
	ents, ct, err := parseIndex(data, idLen)
	if err != nil {
		return "", err
	}
	if id, ok := ct[""]; ok { // nothing changed since git last wrote the trees
		return hex.EncodeToString(id), nil
	}
	w := &treeWriter{objects: objects, dirs: dirs, idLen: idLen, cache: ct}
	id, rest, err := w.tree("", ents)
	if err != nil {
		return "", err
	}
	if len(rest) != 0 {
		return "", fmt.Errorf("%w: entries out of order", errIndexUnsupported)
	}
	return hex.EncodeToString(id), nil
}

// indexHashLen is the length of the index's object ids, told by its
// trailing checksum, which git verifies too: 20 when it is the SHA-1 of
// the rest, 32 for SHA-256, 0 when neither (no checksum, torn).
func indexHashLen(data []byte) int {
	if n := len(data) - sha1.Size; n >= 12 {
		if sum := sha1.Sum(data[:n]); bytes.Equal(sum[:], data[n:]) {
			return sha1.Size
		}
	}
	if n := len(data) - sha256.Size; n >= 12 {
		if sum := sha256.Sum256(data[:n]); bytes.Equal(sum[:], data[n:]) {
			return sha256.Size
		}
	}
	return 0
}

// parseIndex reads the stage-0 entries (in index order) and the cache
// tree of an index file of version 2, 3 or 4.
func parseIndex(data []byte, idLen int) ([]indexEntry, cacheTree, error) {
	if len(data) < 12+idLen || string(data[:4]) != "DIRC" {
		return nil, nil, fmt.Errorf("%w: not an index", errIndexUnsupported)
	}
	version := binary.BigEndian.Uint32(data[4:])
	if version < 2 || version > 4 {
		return nil, nil, fmt.Errorf("%w: version %d", errIndexUnsupported, version)
	}
	count := binary.BigEndian.Uint32(data[8:])
	end := len(data) - idLen // the trailing checksum
	bad := fmt.Errorf("%w: truncated", errIndexUnsupported)
	ents := make([]indexEntry, 0, min(int(count), end/62))
	pos, prev := 12, ""
	fixed := 40 + idLen + 2 // stat data, object id, flags
	for range count {
		if pos+fixed > end {
			return nil, nil, bad
		}
		start := pos
		mode := binary.BigEndian.Uint32(data[pos+24:])
		id := data[pos+40 : pos+40+idLen]
		flags := binary.BigEndian.Uint16(data[pos+40+idLen:])
		pos += fixed
		skipped := false
		if flags&0x4000 != 0 { // extended flags
			if version < 3 || pos+2 > end {
				return nil, nil, bad
			}
			ext := binary.BigEndian.Uint16(data[pos:])
			if ext&0x2000 != 0 { // intent to add: not in git's trees either
				return nil, nil, fmt.Errorf("%w: intent-to-add entry", errIndexUnsupported)
			}
			skipped = ext&0x4000 != 0
			pos += 2
		}
		if flags&0x3000 != 0 {
			return nil, nil, fmt.Errorf("%w: unmerged entry", errIndexUnsupported)
		}
		var path string
		if version == 4 { // prefix-compressed: drop n bytes of the previous path
			n, k := binary.Uvarint(data[pos:end])
			if k <= 0 || n > uint64(len(prev)) {
				return nil, nil, bad
			}
			pos += k
			nul := bytes.IndexByte(data[pos:end], 0)
			if nul < 0 {
				return nil, nil, bad
			}
			path = prev[:len(prev)-int(n)] + string(data[pos:pos+nul])
			pos += nul + 1
		} else {
			nul := bytes.IndexByte(data[pos:end], 0)
			if nul < 0 {
				return nil, nil, bad
			}
			path = string(data[pos : pos+nul])
			pos = start + (pos-start+nul+8)&^7 // NUL-padded to 8 bytes
		}
		if pos > end {
			return nil, nil, bad
		}
		prev = path
		if mode&0o170000 == 0o040000 { // a sparse directory entry
			return nil, nil, fmt.Errorf("%w: sparse index", errIndexUnsupported)
		}
		ents = append(ents, indexEntry{path: path, mode: mode, id: id, assumed: flags&0x8000 != 0, skipped: skipped, at: start})
	}
	ct := cacheTree{}
	for pos+8 <= end {
		sig, size := string(data[pos:pos+4]), int(binary.BigEndian.Uint32(data[pos+4:]))
		pos += 8
		if size > end-pos {
			return nil, nil, bad
		}
		switch {
		case sig == "TREE":
			if err := parseCacheTree(data[pos:pos+size], idLen, ct); err != nil {
				return nil, nil, err
			}
		case sig[0] < 'A' || sig[0] > 'Z': // required (link, sdir): not known here
			return nil, nil, fmt.Errorf("%w: extension %q", errIndexUnsupported, sig)
		}
		pos += size
	}
	return ents, ct, nil
}

// parseCacheTree reads the TREE extension: depth first, each directory as
// "<name>\0<entry count> <subtrees>\n" then its id when the count is not
// negative.
func parseCacheTree(data []byte, idLen int, ct cacheTree) error {
	bad := fmt.Errorf("%w: bad cache tree", errIndexUnsupported)
	var walk func(prefix string) error
	walk = func(prefix string) error {
		nul := bytes.IndexByte(data, 0)
		if nul < 0 {
			return bad
		}
		name := string(data[:nul])
		data = data[nul+1:]
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			return bad
		}
		var count, subs int
		if _, err := fmt.Sscanf(string(data[:nl]), "%d %d", &count, &subs); err != nil || subs < 0 {
			return bad
		}
		data = data[nl+1:]
		path := name
		if prefix != "" {
			path = prefix + "/" + name
		}
		if count >= 0 {
			if len(data) < idLen {
				return bad
			}
			ct[path] = data[:idLen]
			data = data[idLen:]
		}
		for range subs {
			if err := walk(path); err != nil {
				return err
			}
		}
		return nil
	}
	return walk("")
}

type treeWriter struct {
	objects string
	dirs    []string
	idLen   int
	cache   cacheTree
}

// tree writes the tree of directory dir ("" the top) from ents, the index
// entries from the first of dir's on, and returns its id and the entries
// after dir's.
func (w *treeWriter) tree(dir string, ents []indexEntry) ([]byte, []indexEntry, error) {
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	var body bytes.Buffer
	for len(ents) > 0 {
		e := ents[0]
		if len(e.path) <= len(prefix) || e.path[:len(prefix)] != prefix {
			break // past dir
		}
		name := e.path[len(prefix):]
		if slash := strings.IndexByte(name, '/'); slash >= 0 {
			sub := prefix + name[:slash]
			id, rest, err := w.subtree(sub, ents)
			if err != nil {
				return nil, nil, err
			}
			fmt.Fprintf(&body, "40000 %s\x00", name[:slash])
			body.Write(id)
			ents = rest
			continue
		}
		if name == "" || len(e.id) != w.idLen {
			return nil, nil, fmt.Errorf("%w: bad entry %q", errIndexUnsupported, e.path)
		}
		body.WriteString(strconv.FormatUint(uint64(e.mode), 8))
		body.WriteByte(' ')
		body.WriteString(name)
		body.WriteByte(0)
		body.Write(e.id)
		ents = ents[1:]
	}
	id, err := w.write(body.Bytes())
	return id, ents, err
}

// subtree is the tree of directory dir: the cache tree's when it still
// holds dir (the entries are skipped), else written from the entries.
func (w *treeWriter) subtree(dir string, ents []indexEntry) ([]byte, []indexEntry, error) {
	id, ok := w.cache[dir]
	if !ok {
		return w.tree(dir, ents)
	}
	prefix := dir + "/"
	for len(ents) > 0 && len(ents[0].path) > len(prefix) && ents[0].path[:len(prefix)] == prefix {
		ents = ents[1:]
	}
	return id, ents, nil
}

// write stores a tree object unless one of the object directories holds
// it loose already.
func (w *treeWriter) write(body []byte) ([]byte, error) {
	var h hash.Hash = sha1.New()
	if w.idLen == 32 {
		h = sha256.New()
	}
	fmt.Fprintf(h, "tree %d\x00", len(body))
	h.Write(body)
	sum := h.Sum(nil)
	id := hex.EncodeToString(sum)
	for _, d := range w.dirs {
		if _, err := os.Lstat(filepath.Join(d, id[:2], id[2:])); err == nil {
			return sum, nil
		}
	}
	h.Reset()
	got, err := writeLoose(w.objects, h, "tree", body)
	if err != nil {
		return nil, err
	}
	if got != id {
		return nil, fmt.Errorf("tree %s written as %s", id, got)
	}
	return sum, nil
}
