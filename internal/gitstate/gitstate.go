// Package gitstate asks git what is dirty in a work tree, read-only. The
// trees the store keeps of each iteration are internal/gitstore's.
package gitstate

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
)

// Git runs git in dir and returns its stdout. Optional locks are off, so
// even `git status` never rewrites the user's index.
func Git(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

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
