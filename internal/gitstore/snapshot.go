package gitstore

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ObjectsOf is the object directory of the user's repository around dir
// (its common one, for a linked worktree), and the work tree's top.
func ObjectsOf(dir string) (top, objects string, err error) {
	out, err := gitCmd{dir: dir}.run("rev-parse", "--path-format=absolute", "--show-toplevel", "--git-path", "objects")
	if err != nil {
		return "", "", err
	}
	var lines []string
	for _, l := range splitLines(out) {
		lines = append(lines, l)
	}
	if len(lines) != 2 {
		return "", "", fmt.Errorf("git rev-parse: unexpected output %q", out)
	}
	return lines[0], lines[1], nil
}

func splitLines(b []byte) []string {
	var ls []string
	start := 0
	for i, c := range b {
		if c == '\n' {
			if i > start {
				ls = append(ls, string(b[start:i]))
			}
			start = i + 1
		}
	}
	if start < len(b) {
		ls = append(ls, string(b[start:]))
	}
	return ls
}

// Base records the work tree around dir before a step: HEAD when the tree
// is clean, else a commit (parent HEAD) of the whole work tree, untracked
// files included, whose new objects go to the object database odb (a
// directory created on demand; never the user's). usedODB tells whether
// anything was written there. ok is false outside git.
func Base(dir, odb string) (base string, usedODB, ok bool, err error) {
	top, userObjects, err := ObjectsOf(dir)
	if err != nil {
		return "", false, false, nil
	}
	user := gitCmd{dir: top}
	head, _ := user.run("rev-parse", "--verify", "-q", "HEAD^{commit}")
	status, err := user.run("status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return "", false, true, err
	}
	if len(trim(head)) > 0 && len(status) == 0 {
		return trim(head), false, true, nil
	}
	if odb == "" {
		return "", false, true, errors.New("the work tree is dirty and there is no private object database to snapshot it into")
	}
	if err := os.MkdirAll(filepath.Join(odb, "objects"), 0o700); err != nil {
		return "", false, true, err
	}
	w := writer(top, filepath.Join(odb, "objects"), userObjects, filepath.Join(odb, "index"))
	if err := seedIndex(top, filepath.Join(odb, "index")); err != nil {
		return "", true, true, err
	}
	tree, err := snapshot(w)
	if err != nil {
		return "", true, true, err
	}
	args := []string{"commit-tree", tree, "-m", "loop-step base: the work tree before the step"}
	if h := trim(head); h != "" {
		args = append(args, "-p", h)
	}
	out, err := w.run(args...)
	if err != nil {
		return "", true, true, err
	}
	os.Remove(filepath.Join(odb, "index")) // only the objects are needed later
	return trim(out), true, true, nil
}

// writer is git in the user's work tree whose object writes go to objects
// (the user's own are read as an alternate) and whose index is index.
func writer(top, objects, userObjects, index string) gitCmd {
	return gitCmd{dir: top, env: []string{
		"GIT_OBJECT_DIRECTORY=" + objects,
		"GIT_ALTERNATE_OBJECT_DIRECTORIES=" + userObjects,
		"GIT_INDEX_FILE=" + index,
	}}
}

// snapshot writes the work tree as it is (untracked files included, ignored
// ones not) as a tree object through the writer's private index.
func snapshot(w gitCmd) (string, error) {
	if _, err := w.run("add", "-A", "--", "."); err != nil {
		return "", err
	}
	out, err := w.run("write-tree")
	if err != nil {
		return "", err
	}
	return trim(out), nil
}

// seedIndex copies the user's index to path (when path has none yet) so
// git's stat cache spares hashing unchanged files; the user's index is
// only read.
func seedIndex(top, path string) error {
	if _, err := os.Lstat(path); err == nil {
		return nil
	}
	idx, err := gitCmd{dir: top}.run("rev-parse", "--path-format=absolute", "--git-path", "index")
	if err != nil {
		return err
	}
	src, err := os.Open(trim(idx))
	if errors.Is(err, os.ErrNotExist) {
		return nil // no index yet: start empty
	}
	if err != nil {
		return err
	}
	defer src.Close()
	tmp := path + ".seed"
	dst, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	n, err := io.Copy(dst, src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil || n == 0 { // git refuses an empty file as an index
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
