package gitstore

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/wfile"
)

// Base records the work tree around dir before a step: HEAD when the tree
// is clean, else a commit (parent HEAD) of the whole work tree, untracked
// files included, whose new objects go to the object database odb (a
// directory created on demand, removed again when the tree is clean; never
// the user's). usedODB tells whether odb holds the base's objects. ok is
// false outside git.
//
// runDir, when not "", is the directory of the run the step belongs to:
// once its private git directory knows the work tree (see Known), the
// snapshot starts from the run's own index, whose stat cache is as fresh
// as the last iteration, and HEAD is asked for beside it, not before.
//
// staged, when not nil, is called once, as soon as the work tree has been
// read into the private index (or Base returns before): the tree and the
// commit are written from that index alone, so the agent may start then.
func Base(dir, odb, runDir string, staged func()) (base string, usedODB, ok bool, err error) {
	var once sync.Once
	ready := func() {
		if staged != nil {
			once.Do(staged)
		}
	}
	defer ready()
	if odb == "" {
		w, err := Locate(dir)
		if err != nil {
			return "", false, false, nil
		}
		return cleanHead(w)
	}
	if err := Gone(runDir); err != nil {
		return "", false, true, err
	}
	w, seed, alts, head := locateForBase(dir, runDir)
	if w == nil {
		return "", false, false, nil
	}
	if err := os.MkdirAll(filepath.Join(odb, "objects"), 0o700); err != nil {
		return "", false, true, err
	}
	objects := filepath.Join(odb, "objects")
	index := filepath.Join(odb, "index")
	if w.Plain { // git needs a repository to run in: odb becomes one
		if err := gitDirAt(odb); err != nil {
			return "", true, true, err
		}
	}
	wr := writer(w, odb, objects, alts, index)
	if err := prepareIndex(seed, index, w.Index); err != nil {
		return "", true, true, err
	}
	known := head != nil
	headOf := func() { // HEAD, asked beside the snapshot when the run knew the tree
		if head != nil {
			h := <-head
			w.Head, w.HeadTree, head = h.Head, h.HeadTree, nil
		}
	}
	if noIndex(index) {
		headOf()
		if err := fromTree(wr, index, w.HeadTree); err != nil {
			return "", true, true, err
		}
	}
	if !known && !w.Plain {
		// before the agent starts (ready): it may move the store away and
		// put a link in its place, which the folders made would follow
		knowObjects(runDir, w)
	}
	if err := stage(wr, addArgs(w), index); err != nil {
		return "", true, true, err
	}
	ready()
	tree, err := writeTree(wr, index, objects, alts)
	if err != nil {
		return "", true, true, err
	}
	if err := seal(index); err != nil {
		return "", true, true, err
	}
	// The index stays with the objects: the run's first snapshot after
	// the step starts from it (see AfterStep), so a folder with no index
	// of the user's is not hashed whole twice.
	headOf()
	// The snapshot is the cleanliness test too: a work tree whose tree is
	// HEAD's is clean (git status would scan the same files once more).
	if w.Head != "" && tree == w.HeadTree {
		if !known {
			keepIndex(index, runDir)
		}
		os.RemoveAll(odb) // nothing HEAD does not hold
		return w.Head, false, true, nil
	}
	id, err := writeCommit(objects, tree, w.Head, "loop-step base: the work tree before the step", time.Now())
	if err != nil {
		return "", true, true, err
	}
	return id, true, true, nil
}

// keepIndex makes the sealed index of a clean base the index of the run
// at runDir, which has none yet: the run's first snapshot after the step
// starts from it, as from a dirty base's (baseIndex), not from HEAD's
// tree. Its stat cache spares hashing every file again, and its
// skip-worktree marks (a sparse checkout's files left out) tell git add
// which absent files are not deleted. Best effort: without it the
// snapshot reads every file.
func keepIndex(index, runDir string) {
	if runDir == "" {
		return
	}
	d := filepath.Join(runDir, Dir)
	if fi, err := os.Lstat(d); err != nil || !fi.IsDir() {
		return
	}
	own := filepath.Join(d, "index")
	if _, err := os.Lstat(own); !errors.Is(err, os.ErrNotExist) || !sealed(index) {
		return
	}
	// the seal first: an index without its seal is never used
	if os.Rename(index+macSuffix, own+macSuffix) == nil {
		_ = os.Rename(index, own)
	}
}

// knowObjects makes the run's git directory at runDir, when the run has
// none yet, with w's objects as its alternate: the record that makes it
// otherwise asks where they are after the agent ran, and an agent that
// pointed .git at another repository would leave the base (HEAD of the
// real one) out of its reach. Best effort: the record makes it anyway.
func knowObjects(runDir string, w *Where) {
	if runDir == "" {
		return
	}
	if fi, err := os.Lstat(runDir); err != nil || !fi.IsDir() {
		return // no run there: nothing is made for it
	}
	if _, err := Open(runDir); err == nil {
		return
	}
	_, _ = create(runDir, w.Objects, w.Format)
}

// locateForBase is where the work tree around dir is, the index to seed
// the snapshot from and the alternates its objects are found in. When the
// run's git directory knows the work tree, HEAD comes later on head (the
// Where of a Locate run beside the snapshot; an empty one if it fails).
// w is nil outside git.
func locateForBase(dir, runDir string) (w *Where, seed string, alts []string, head <-chan *Where) {
	if runDir != "" {
		if k, ok := Known(runDir, dir); ok {
			ch := make(chan *Where, 1)
			go func() {
				l, err := Locate(k.Top)
				if err != nil {
					l = &Where{}
				}
				ch <- l
			}()
			objects := filepath.Join(runDir, Dir, "objects")
			return k, filepath.Join(runDir, Dir, "index"), []string{k.Objects, objects}, ch
		}
	}
	w, err := LocateAny(dir)
	if err != nil {
		return nil, "", nil, nil
	}
	if w.Plain {
		// no index of the user's: the run's own, a stat cache of the
		// same folder since the last iteration, when there is one
		// (whose entries' objects are the run's)
		if runDir == "" {
			return w, "", nil, nil
		}
		return w, filepath.Join(runDir, Dir, "index"), []string{filepath.Join(runDir, Dir, "objects")}, nil
	}
	if runDir != "" {
		if _, err := Open(runDir); err == nil {
			// the run was recorded, so the agent has run: the user's index
			// is its to forge (see baseIndex), and every file is read
			return w, "", []string{w.Objects}, nil
		}
	}
	return w, w.Index, []string{w.Objects}, nil
}

// cleanHead is the base without an object database to write into: HEAD
// when the work tree is clean, else an error.
func cleanHead(w *Where) (string, bool, bool, error) {
	status, err := gitCmd{dir: w.Top}.run("status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return "", false, true, err
	}
	if w.Head == "" || len(status) > 0 {
		return "", false, true, errors.New("the work tree is dirty and there is no private object database to snapshot it into")
	}
	return w.Head, false, true, nil
}

// writer is git in the user's work tree w.Top whose object writes go to
// objects (the user's own, and alts, are read as alternates) and whose
// index is index. A plain folder has no repository: git runs in gitDir,
// one of loopkit's, with the folder as its work tree.
func writer(w *Where, gitDir, objects string, alts []string, index string) gitCmd {
	g := gitCmd{dir: w.Top, env: []string{
		"GIT_OBJECT_DIRECTORY=" + objects,
		"GIT_ALTERNATE_OBJECT_DIRECTORIES=" + alternates(alts),
		"GIT_INDEX_FILE=" + index,
	}}
	if w.Plain {
		g.env = append(g.env, "GIT_DIR="+gitDir, "GIT_WORK_TREE="+w.Top)
	}
	return g
}

// addArgs stages the whole work tree, untracked files included; a plain
// folder's store is left out.
func addArgs(w *Where) []string {
	args := []string{"add", "-A", "--", "."}
	if w.Plain {
		args = append(args, ":(exclude,top)"+StoreName)
	}
	return args
}

// gitDirAt makes dir a git directory git accepts (HEAD, objects, refs),
// for a plain folder's snapshot; what is there is kept.
func gitDirAt(dir string) error {
	for _, sub := range []string{"objects", "refs"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			return err
		}
	}
	head := filepath.Join(dir, "HEAD")
	if _, err := os.Lstat(head); errors.Is(err, os.ErrNotExist) {
		return wfile.WriteFile(head, []byte("ref: refs/heads/main\n"), 0o600)
	}
	return nil
}

// alternates joins directories for GIT_ALTERNATE_OBJECT_DIRECTORIES: by
// ':', an entry holding ':' or '"' (or a newline) quoted as git unquotes
// it.
func alternates(dirs []string) string {
	var b strings.Builder
	for _, d := range dirs {
		if d == "" {
			continue // a plain folder has no objects of its own
		}
		if b.Len() > 0 {
			b.WriteByte(':')
		}
		if !strings.ContainsAny(d, ":\"\n") {
			b.WriteString(d)
			continue
		}
		b.WriteByte('"')
		for _, c := range []byte(d) {
			switch c {
			case '"', '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case '\n':
				b.WriteString(`\n`)
			default:
				b.WriteByte(c)
			}
		}
		b.WriteByte('"')
	}
	return b.String()
}

// snapshot writes the work tree as it is (untracked files included, ignored
// ones not) as a tree object through the writer's private index (at
// index; objects and alts as given to writer).
func snapshot(w gitCmd, add []string, index, objects string, alts []string) (string, error) {
	if err := stage(w, add, index); err != nil {
		return "", err
	}
	tree, err := writeTree(w, index, objects, alts)
	if err != nil {
		return "", err
	}
	return tree, seal(index)
}

// writeTree is `git write-tree` of the index git add just wrote, by
// writeTreeFromIndex when it can (no git process, no index rewritten),
// else by git: also when git add wrote no index (an empty work tree),
// for git writes the empty tree.
func writeTree(w gitCmd, index, objects string, alts []string) (string, error) {
	tree, err := writeTreeFromIndex(index, objects, append([]string{objects}, alts...))
	if err == nil || !(errors.Is(err, errIndexUnsupported) || errors.Is(err, os.ErrNotExist)) {
		return tree, err
	}
	out, err := w.run("write-tree")
	if err != nil {
		return "", err
	}
	return trim(out), nil
}

// noIndex says there is no index at path: nothing seeded it.
func noIndex(path string) bool {
	_, err := os.Lstat(path)
	return errors.Is(err, os.ErrNotExist)
}

// fromTree starts the index at index, which nothing seeded (no index to
// copy, or one whose seal did not hold), from tree: the tree the snapshot
// is compared with (HEAD's, the step's base). git add -A keeps what the
// index holds whatever the ignore rules say, as it keeps a tracked file,
// so the rules the agent can write (a `*` in .git/info/exclude, out of
// every diff) keep new files out of the snapshot and never make that
// tree's files look deleted. The entries have no stat data: every file
// is read.
func fromTree(w gitCmd, index, tree string) error {
	if tree == "" || !noIndex(index) {
		return nil
	}
	_, err := w.run("read-tree", tree)
	return err
}

// maxSeedIndex caps the user's index seedIndex copies: an index of a
// million files is about 100 MB.
const maxSeedIndex = 1 << 30

// seedIndex copies an index (the user's, or a step base's) to path (when
// path has none yet) so git's stat cache spares hashing unchanged files;
// the index copied is only read.
func seedIndex(userIndex, path string) error {
	if _, err := os.Lstat(path); err == nil || userIndex == "" || userIndex == path {
		return nil
	}
	src, err := safefile.Open(userIndex) // the agent can put a FIFO there
	if errors.Is(err, os.ErrNotExist) {
		return nil // no index yet: start empty
	}
	if err != nil {
		return err
	}
	defer src.Close()
	if fi, err := src.Stat(); err != nil {
		return err
	} else if fi.Size() > maxSeedIndex {
		return fmt.Errorf("%s: more than %d bytes; move it away", userIndex, int64(maxSeedIndex))
	}
	tmp := path + ".seed"
	dst, err := wfile.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	n, err := io.Copy(dst, io.LimitReader(src, maxSeedIndex+1))
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > maxSeedIndex {
		err = fmt.Errorf("%s: more than %d bytes", userIndex, int64(maxSeedIndex))
	}
	if err != nil || n == 0 { // git refuses an empty file as an index
		os.Remove(tmp)
		if err != nil {
			return fmt.Errorf("seed the private index: %w", err)
		}
		return nil
	}
	// The copy keeps the index's mtime: git trusts an entry's stat data only
	// when the file is older than the index, and a copy made later would
	// hide a same-size edit made in the clock tick the index was written.
	if fi, err := src.Stat(); err != nil {
		os.Remove(tmp)
		return err
	} else if err := os.Chtimes(tmp, fi.ModTime(), fi.ModTime()); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
