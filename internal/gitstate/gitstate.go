// Package gitstate asks git what is dirty in a work tree, read-only. The
// trees the store keeps of each iteration are internal/gitstore's.
package gitstate

import (
	"bytes"
	"sort"
	"strings"

	"github.com/loopkit/loopkit/internal/gitrun"
)

// Git runs git in dir and returns its stdout, under gitrun's policy
// (optional locks off, so even `git status` never rewrites the user's
// index; nothing of an untrusted config run).
func Git(dir string, args ...string) ([]byte, error) { return gitrun.Git(dir, args...) }

// TopLevel is the root of the work tree holding dir.
func TopLevel(dir string) (string, error) {
	out, err := Git(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// Dirty lists the paths git status shows in the work tree at top (modified,
// added, deleted, renamed, untracked), relative to the repository root.
func Dirty(top string) ([]string, error) {
	out, err := Git(top, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return nil, err
	}
	return parsePorcelain(out), nil
}

// parsePorcelain reads `git status --porcelain=v1 -z`: "XY path\0", and for
// renames and copies "XY new\0old\0". Both names of a rename are listed.
func parsePorcelain(out []byte) []string {
	seen := map[string]bool{}
	fields := bytes.Split(out, []byte{0})
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if len(f) < 4 {
			continue
		}
		xy, path := f[:2], string(f[3:])
		seen[path] = true
		if xy[0] == 'R' || xy[0] == 'C' || xy[1] == 'R' || xy[1] == 'C' {
			if i+1 < len(fields) && len(fields[i+1]) > 0 {
				seen[string(fields[i+1])] = true
			}
			i++
		}
	}
	return sortedKeys(seen)
}

func sortedKeys(m map[string]bool) []string {
	paths := make([]string, 0, len(m))
	for p := range m {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}
