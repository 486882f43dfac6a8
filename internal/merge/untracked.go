package merge

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// written are the paths a merge of run into target, after a checkout of
// target over prev, would write in the primary worktree: those the
// checkout changes and those the run changed since its merge base.
func written(p, prev, target, run string) ([]string, error) {
	seen := map[string]bool{}
	add := func(from, to string) error {
		out, err := git(p, "diff", "--name-only", "--no-renames", "--no-ext-diff", "--no-textconv", "-z", from, to, "--")
		if err != nil {
			return err
		}
		for _, f := range bytes.Split(out, []byte{0}) {
			if len(f) > 0 {
				seen[string(f)] = true
			}
		}
		return nil
	}
	if prev != target {
		if err := add(prev, target); err != nil {
			return nil, err
		}
	}
	base := target
	if out, err := git(p, "merge-base", target, run); err == nil {
		base = strings.TrimSpace(string(out))
	}
	if err := add(base, run); err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(seen))
	for f := range seen {
		paths = append(paths, f)
	}
	sort.Strings(paths)
	return paths, nil
}

// untracked refuses a merge that would write where the primary holds an
// untracked or ignored file: git overwrites ignored files without a word
// (a person's .env, local settings), so each is checked before anything
// moves. A file standing where the merge needs a directory counts too.
func untracked(p string, paths []string, s Spec) error {
	specs := append([]string(nil), paths...)
	dirs := map[string]bool{}
	for _, f := range paths {
		for d := path.Dir(f); d != "." && d != "/" && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
			if fi, err := os.Lstat(filepath.Join(p, filepath.FromSlash(d))); err == nil && !fi.IsDir() {
				specs = append(specs, d)
			}
		}
	}
	var found []string
	for len(specs) > 0 {
		n := min(len(specs), 500) // stay well under the argument limit
		// no --exclude-standard: ignored files are listed with the rest
		out, err := git(p, append([]string{"--literal-pathspecs", "ls-files", "--others", "-z", "--"}, specs[:n]...)...)
		if err != nil {
			return &Error{Kind: KindGit, Err: err}
		}
		for _, f := range bytes.Split(out, []byte{0}) {
			if len(f) > 0 {
				found = append(found, string(f))
			}
		}
		specs = specs[n:]
	}
	if len(found) == 0 {
		return nil
	}
	sort.Strings(found)
	return &Error{Kind: KindUntracked, Paths: found, Err: fmt.Errorf(
		"merging %s into %s would overwrite untracked or ignored files in the primary worktree %s (%s): move them aside, then resume",
		s.RunBranch, s.Target, p, List(found))}
}

// touchesIgnore tells whether the merge writes a .gitignore.
func touchesIgnore(paths []string) bool {
	for _, f := range paths {
		if path.Base(f) == ".gitignore" {
			return true
		}
	}
	return false
}

// untrackedFiles are the untracked files of the primary that its ignore
// rules do not hide.
func untrackedFiles(p string) (map[string]bool, error) {
	out, err := git(p, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, f := range bytes.Split(out, []byte{0}) {
		if len(f) > 0 {
			set[string(f)] = true
		}
	}
	return set, nil
}
