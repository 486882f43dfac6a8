package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/loopkit/loopkit/internal/gitrun"
	"github.com/loopkit/loopkit/internal/safefile"
)

// stage runs add (git add -A) through the writer's index at index, which
// is first made to hide nothing from git add:
//   - For a gitlink, git add runs `git status` in the nested repository,
//     under that repository's own config (an fsmonitor, filters), which
//     no hash of loopkit's covers and the agent can write: the gitlinks
//     are dropped, and git add takes each nested repository's HEAD anew,
//     as it takes a new one, without looking inside.
//   - An entry marked assume-unchanged, or skip-worktree while its file is
//     there, is skipped by git add whatever the file holds; the agent can
//     mark its own repository's index, a snapshot's seed. The marks go.
//
// In a sparse checkout git add refuses the files outside the
// sparse-checkout definition (exit 1): a file the agent writes there
// would fail every snapshot of the run. They are staged as git add
// --sparse stages them (see sparseArgs).
func stage(w gitCmd, add []string, index string) error {
	links, marked, sparse, err := entriesToClear(w, index)
	if err != nil {
		return err
	}
	// one mark per call: update-index applies the first it is given
	if len(links) > 0 {
		// not git rm --cached: it refuses any gitlink while .gitmodules
		// has unstaged changes (a person's edit, a submodule the agent added)
		rm := w
		rm.stdin = strings.NewReader(strings.Join(links, "\x00") + "\x00")
		if _, err := rm.run("update-index", "--force-remove", "-z", "--stdin"); err != nil {
			return err
		}
	}
	for i, flag := range []string{"--no-assume-unchanged", "--no-skip-worktree"} {
		if len(marked[i]) == 0 {
			continue
		}
		um := w
		um.stdin = strings.NewReader(strings.Join(marked[i], "\x00") + "\x00")
		if _, err := um.run("update-index", flag, "-z", "--stdin"); err != nil {
			return err
		}
	}
	if w.dir != "" { // git add reads .gitignore files: no FIFO may hold it
		stop := make(chan struct{})
		defer close(stop)
		go unblockIgnores(w.dir, stop)
	}
	if sparse {
		// the index says which absent files the checkout left out
		// (skip-worktree): --sparse keeps them and takes the rest as git
		// add takes them outside a sparse checkout; git before 2.34 has no
		// --sparse, and no refusal either
		_, err = w.run(sparseArgs(add, "-A")...)
		if err == nil || !strings.Contains(err.Error(), "unknown option `sparse'") {
			return stageFailed(w, sparseArgs(add, "-A"), err)
		}
	}
	_, err = w.run(add...)
	if err != nil && !gitrun.Aborted() && strings.Contains(err.Error(), "outside of your sparse-checkout definition") {
		// an index with no skip-worktree mark (started from a tree):
		// --sparse would take every file the checkout left out for
		// deleted, so it only adds, and git add -A then takes the rest
		if _, err = w.run(sparseArgs(add, "--ignore-removal")...); err == nil {
			_, err = w.run(add...)
		}
	}
	return stageFailed(w, add, err)
}

// stageFailed is stage's end once git add ran: err, or git add again by
// stageRaw when working-tree-encoding files are to blame.
func stageFailed(w gitCmd, add []string, err error) error {
	if err == nil || gitrun.Aborted() {
		return err
	}
	return stageRaw(w, add, err)
}

// sparseArgs is the git add args add (["add", "-A", ...]) with --sparse
// and mode (-A, or --ignore-removal) in place of -A.
func sparseArgs(add []string, mode string) []string {
	out := []string{add[0], "--sparse", mode}
	for _, a := range add[1:] {
		if a != "-A" {
			out = append(out, a)
		}
	}
	return out
}

// stageRaw is git add again, after it failed, when files whose
// working-tree-encoding attribute is set are to blame: a .gitattributes
// the agent writes (`*.txt working-tree-encoding=UTF-16`, a file without
// its byte order mark) fails every git add, and every snapshot of the run
// with it. Those files are staged as they are, bytes unconverted (git
// hash-object --no-filters), and the rest by git add; addErr is returned
// when no such file is to blame.
func stageRaw(w gitCmd, add []string, addErr error) error {
	out, err := w.run("ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if err != nil {
		return addErr
	}
	ck := w
	ck.stdin = bytes.NewReader(out)
	attrs, err := ck.run("check-attr", "-z", "--stdin", "working-tree-encoding")
	if err != nil {
		return addErr
	}
	var raw []string
	f := bytes.Split(attrs, []byte{0}) // path, attribute, value, ...
	for i := 0; i+2 < len(f); i += 3 {
		path, v := string(f[i]), string(f[i+2])
		if v == "unspecified" || v == "unset" || slices.Contains(raw, path) {
			continue
		}
		if fi, err := os.Lstat(filepath.Join(w.dir, filepath.FromSlash(path))); err == nil && fi.Mode().IsRegular() {
			raw = append(raw, path)
		}
	}
	if len(raw) == 0 {
		return addErr
	}
	specs := slices.Clone(add[slices.Index(add, "--")+1:])
	for _, p := range raw {
		specs = append(specs, ":(top,literal,exclude)"+p)
	}
	rest := w
	rest.stdin = strings.NewReader(strings.Join(specs, "\x00"))
	if _, err := rest.run(append(slices.Clone(add[:slices.Index(add, "--")]), "--pathspec-from-file=-", "--pathspec-file-nul")...); err != nil {
		return err
	}
	var lines []string
	for rest := raw; len(rest) > 0; { // by arguments: a name may hold a newline
		n := min(len(rest), 500)
		ids, err := w.run(append([]string{"hash-object", "-w", "--no-filters", "--"}, rest[:n]...)...)
		if err != nil {
			return err
		}
		lines, rest = append(lines, splitLines(ids)...), rest[n:]
	}
	if len(lines) != len(raw) {
		return fmt.Errorf("git hash-object: %d ids for %d files", len(lines), len(raw))
	}
	var info strings.Builder
	for i, p := range raw {
		mode := "100644"
		if fi, err := os.Lstat(filepath.Join(w.dir, filepath.FromSlash(p))); err == nil && fi.Mode()&0o111 != 0 {
			mode = "100755"
		}
		fmt.Fprintf(&info, "%s %s\t%s\x00", mode, lines[i], p)
	}
	ui := w
	ui.stdin = strings.NewReader(info.String())
	_, err = ui.run("update-index", "-z", "--index-info")
	return err
}

// entriesToClear reads the index at index: its gitlinks, and the paths
// git add would not look at (assume-unchanged; skip-worktree with the file
// in the work tree at top); sparse when a skip-worktree entry's file is
// absent (a sparse checkout's). An index the Go reader leaves to git is
// asked of git ls-files.
func entriesToClear(w gitCmd, index string) (links []string, marked [2][]string, sparse bool, err error) {
	present := func(path string) bool {
		_, err := os.Lstat(filepath.Join(w.dir, filepath.FromSlash(path)))
		return err == nil
	}
	data, err := safefile.ReadFile(index, maxIndex)
	if errors.Is(err, os.ErrNotExist) {
		return nil, marked, false, nil
	}
	if err != nil {
		return nil, marked, false, err
	}
	if n := indexHashLen(data); n > 0 {
		if ents, _, err := parseIndex(data, n); err == nil {
			for _, e := range ents {
				if e.mode&0o170000 == 0o160000 {
					links = append(links, e.path)
					continue
				}
				if e.assumed {
					marked[0] = append(marked[0], e.path)
				}
				if e.skipped {
					if present(e.path) {
						marked[1] = append(marked[1], e.path)
					} else {
						sparse = true
					}
				}
			}
			return links, marked, sparse, nil
		}
	}
	out, err := w.run("ls-files", "--stage", "-v", "-z")
	if err != nil {
		return nil, marked, false, err
	}
	for _, ent := range bytes.Split(out, []byte{0}) {
		meta, path, ok := bytes.Cut(ent, []byte{'\t'})
		if !ok || len(meta) < 2 {
			continue
		}
		tag, rest := meta[0], meta[2:]
		if bytes.HasPrefix(rest, []byte("160000 ")) {
			links = append(links, string(path))
			continue
		}
		if tag >= 'a' && tag <= 'z' { // lower case: assume-unchanged
			marked[0] = append(marked[0], string(path))
		}
		if tag|0x20 == 's' {
			if present(string(path)) {
				marked[1] = append(marked[1], string(path))
			} else {
				sparse = true
			}
		}
	}
	return links, marked, sparse, nil
}
