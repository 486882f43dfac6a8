package gitstore

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

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
func stage(w gitCmd, add []string, index string) error {
	links, marked, err := entriesToClear(w, index)
	if err != nil {
		return err
	}
	// one mark per call: update-index applies the first it is given
	if len(links) > 0 {
		rm := w
		rm.env = append(slices.Clone(w.env), "GIT_LITERAL_PATHSPECS=1")
		rm.stdin = strings.NewReader(strings.Join(links, "\x00"))
		if _, err := rm.run("rm", "--cached", "-f", "-q", "--ignore-unmatch", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
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
	_, err = w.run(add...)
	return err
}

// entriesToClear reads the index at index: its gitlinks, and the paths
// git add would not look at (assume-unchanged; skip-worktree with the file
// in the work tree at top). An index the Go reader leaves to git is
// asked of git ls-files.
func entriesToClear(w gitCmd, index string) (links []string, marked [2][]string, err error) {
	present := func(path string) bool {
		_, err := os.Lstat(filepath.Join(w.dir, filepath.FromSlash(path)))
		return err == nil
	}
	data, err := safefile.ReadFile(index, maxIndex)
	if errors.Is(err, os.ErrNotExist) {
		return nil, marked, nil
	}
	if err != nil {
		return nil, marked, err
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
				if e.skipped && present(e.path) {
					marked[1] = append(marked[1], e.path)
				}
			}
			return links, marked, nil
		}
	}
	out, err := w.run("ls-files", "--stage", "-v", "-z")
	if err != nil {
		return nil, marked, err
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
		if tag|0x20 == 's' && present(string(path)) {
			marked[1] = append(marked[1], string(path))
		}
	}
	return links, marked, nil
}
