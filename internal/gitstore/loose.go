package gitstore

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/loopkit/loopkit/internal/safefile"
)

// EmptyTree is git's tree with nothing in it (SHA-1), which every
// repository knows without storing it.
const EmptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// errNotLoose is an object the loose reader cannot answer for (packed,
// missing, or not what it expected): git is asked instead.
var errNotLoose = errors.New("not a loose object")

// maxLooseTree bounds a tree read into memory; a bigger one goes to git.
const maxLooseTree = 16 << 20

// looseDB reads the objects of a repo that are stored loose (one zlib file
// each, as the snapshots of a run write them) in its object directory and
// its alternates, without a git process. Anything else is errNotLoose, and
// the caller asks git: this only spares processes, it never decides alone.
type looseDB struct {
	dirs []string
}

// looseObjects is the repo's object directory and its alternates, as git
// reads them (alternates of alternates too, a few levels deep).
func (r *Repo) looseObjects() *looseDB {
	db := &looseDB{}
	var add func(dir string, depth int)
	add = func(dir string, depth int) {
		for _, d := range db.dirs {
			if d == dir {
				return
			}
		}
		db.dirs = append(db.dirs, dir)
		if depth == 5 {
			return
		}
		data, err := safefile.ReadFile(filepath.Join(dir, "info", "alternates"), maxAlternates)
		if err != nil {
			return
		}
		for _, l := range splitLines(data) {
			if l == "" || l[0] == '#' || l[0] == '"' {
				continue // a quoted entry: left to git
			}
			if !filepath.IsAbs(l) {
				l = filepath.Join(dir, l)
			}
			add(filepath.Clean(l), depth+1)
		}
	}
	add(filepath.Join(r.GitDir, "objects"), 0)
	return db
}

// open returns an object's kind and size and a reader of its data.
func (db *looseDB) open(id string) (kind string, size int64, body io.Reader, done func(), err error) {
	if !isObjectID(id) {
		return "", 0, nil, nil, errNotLoose
	}
	for _, dir := range db.dirs {
		f, err := safefile.Open(filepath.Join(dir, id[:2], id[2:]))
		if err != nil {
			continue
		}
		z, err := inflater(bufio.NewReader(f))
		if err != nil {
			f.Close()
			return "", 0, nil, nil, errNotLoose
		}
		// the header ends within a few bytes: a file without one is not
		// read on (ReadSlice stops at the buffer's size)
		br := bufio.NewReaderSize(z, 4096)
		line, err := br.ReadSlice(0)
		header := string(line)
		kind, n, ok := strings.Cut(strings.TrimSuffix(header, "\x00"), " ")
		size, perr := strconv.ParseInt(n, 10, 64)
		if err != nil || !ok || perr != nil || size < 0 {
			z.Close()
			f.Close()
			return "", 0, nil, nil, errNotLoose
		}
		return kind, size, io.LimitReader(br, size), func() { z.Close(); f.Close(); inflaters.Put(z) }, nil
	}
	return "", 0, nil, nil, errNotLoose
}

// inflaters keeps zlib readers for reuse (zlib.Resetter): a new one
// allocates its ~40 KiB of tables, and a record reads several objects.
var inflaters sync.Pool

// inflater is a zlib reader of r, a kept one when there is one; it goes
// back to inflaters once closed and no longer read.
func inflater(r io.Reader) (io.ReadCloser, error) {
	if z, ok := inflaters.Get().(io.ReadCloser); ok {
		if err := z.(zlib.Resetter).Reset(r, nil); err != nil {
			inflaters.Put(z)
			return nil, err
		}
		return z, nil
	}
	return zlib.NewReader(r)
}

// size is a blob's size.
func (db *looseDB) size(id string) (int64, error) {
	kind, size, _, done, err := db.open(id)
	if err != nil {
		return 0, err
	}
	done()
	if kind != "blob" {
		return 0, errNotLoose
	}
	return size, nil
}

type treeEntry struct {
	mode uint32 // canonical, as git diff shows it
	name string
	id   string
}

// tree reads a tree, or the tree of a commit.
func (db *looseDB) tree(id string) ([]treeEntry, error) {
	if id == EmptyTree {
		return nil, nil
	}
	kind, size, body, done, err := db.open(id)
	if err != nil {
		return nil, err
	}
	defer done()
	if kind == "commit" {
		line, err := bufio.NewReader(body).ReadString('\n')
		tree, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "tree ")
		if err != nil || !ok || !isObjectID(tree) || tree == id {
			return nil, errNotLoose
		}
		return db.tree(tree)
	}
	if kind != "tree" || size > maxLooseTree {
		return nil, errNotLoose
	}
	data, err := io.ReadAll(body)
	if err != nil || int64(len(data)) != size {
		return nil, errNotLoose
	}
	return parseTree(data, len(id)/2)
}

// parseTree splits a tree object's data ("<octal mode> <name>\0<raw id>"
// per entry) whose ids are idLen bytes.
func parseTree(data []byte, idLen int) ([]treeEntry, error) {
	var es []treeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp <= 0 || nul < sp+2 || len(data) < nul+1+idLen {
			return nil, errNotLoose
		}
		mode, err := strconv.ParseUint(string(data[:sp]), 8, 32)
		if err != nil {
			return nil, errNotLoose
		}
		es = append(es, treeEntry{mode: canonMode(uint32(mode)), name: string(data[sp+1 : nul]),
			id: hex.EncodeToString(data[nul+1 : nul+1+idLen])})
		data = data[nul+1+idLen:]
	}
	return es, nil
}

const (
	modeTree    = 0o040000
	modeFile    = 0o100644
	modeExec    = 0o100755
	modeLink    = 0o120000
	modeGitlink = 0o160000
)

// canonMode is git's canon_mode: the few modes a tree entry can mean.
func canonMode(m uint32) uint32 {
	switch m & 0o170000 {
	case 0o100000:
		if m&0o100 != 0 {
			return modeExec
		}
		return modeFile
	case modeLink:
		return modeLink
	case modeTree:
		return modeTree
	}
	return modeGitlink
}

// changes is Changes read from loose objects alone: the walk git's tree
// diff makes (-r, no renames), each side sorted with a directory's name
// ending in '/', so a file and a directory of one name are a deletion and
// an addition, while a file and a link are one change of type.
func (db *looseDB) changes(from, to string) ([]Change, error) {
	var cs []Change
	err := db.diff("", from, to, len(to), &cs)
	return cs, err
}

// maxDepth bounds the walk: objects are read, not verified, and a crafted
// tree naming itself must not recurse for ever.
const maxDepth = 1000

func (db *looseDB) diff(prefix, from, to string, idLen int, cs *[]Change) error {
	if from == to {
		return nil
	}
	if strings.Count(prefix, "/") > maxDepth {
		return errNotLoose
	}
	var a, b []treeEntry
	var err error
	if from != "" {
		if a, err = db.tree(from); err != nil {
			return err
		}
	}
	if to != "" {
		if b, err = db.tree(to); err != nil {
			return err
		}
	}
	zero := strings.Repeat("0", idLen)
	for len(a) > 0 || len(b) > 0 {
		c := 0
		switch {
		case len(a) == 0:
			c = 1
		case len(b) == 0:
			c = -1
		default:
			c = strings.Compare(sortKey(a[0]), sortKey(b[0]))
		}
		var was, is *treeEntry
		if c <= 0 {
			was, a = &a[0], a[1:]
		}
		if c >= 0 {
			is, b = &b[0], b[1:]
		}
		if err := db.pair(prefix, was, is, zero, cs); err != nil {
			return err
		}
	}
	return nil
}

// pair is one name of the walk: on one side (was or is nil) or on both.
func (db *looseDB) pair(prefix string, was, is *treeEntry, zero string, cs *[]Change) error {
	e := was
	if e == nil {
		e = is
	}
	path := prefix + e.name
	if e.mode == modeTree { // then both are trees: the sort key tells
		from, to := "", ""
		if was != nil {
			from = was.id
		}
		if is != nil {
			to = is.id
		}
		return db.diff(path+"/", from, to, len(zero), cs)
	}
	if was != nil && is != nil && was.id == is.id && was.mode == is.mode {
		return nil
	}
	c := Change{Path: path, OldMode: "000000", NewMode: "000000", OldID: zero, NewID: zero}
	if was != nil {
		c.OldMode, c.OldID = fmt.Sprintf("%06o", was.mode), was.id
	}
	if is != nil {
		c.NewMode, c.NewID = fmt.Sprintf("%06o", is.mode), is.id
	}
	*cs = append(*cs, c)
	return nil
}

func sortKey(e treeEntry) string {
	if e.mode == modeTree {
		return e.name + "/"
	}
	return e.name
}
