package gitstate

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopkit/loopkit/internal/safefile"
)

// HeadCommit is the commit HEAD names in the work tree at top, as
// `git rev-parse --verify -q HEAD` prints it, "" when there is none (an
// unborn branch). It reads .git's files itself (HEAD, the loose ref, then
// packed-refs): every iteration asks, and a git process costs more than
// the rest of the question. Whatever it does not know for certain (a
// reftable, a symbolic ref pointing at a symbolic ref, a file it cannot
// read) is asked of git, which ignores a caller's GIT_DIR as this does.
func HeadCommit(top string) string {
	if sha, ok := headFromFiles(top); ok {
		return sha
	}
	if out, err := Git(top, "rev-parse", "--verify", "-q", "HEAD"); err == nil {
		return strings.TrimSpace(string(out))
	}
	return ""
}

// headFromFiles answers when the files answer for sure; ok false asks git.
func headFromFiles(top string) (sha string, ok bool) {
	gitDir, common, ok := gitDirs(top)
	if !ok {
		return "", false
	}
	if _, err := os.Lstat(filepath.Join(common, "reftable")); err == nil {
		return "", false
	}
	head, err := safefile.ReadFile(filepath.Join(gitDir, "HEAD"), 4096)
	if err != nil {
		return "", false
	}
	line := strings.TrimSpace(string(head))
	ref, symbolic := strings.CutPrefix(line, "ref: ")
	if !symbolic {
		return line, isHash(line)
	}
	if !strings.HasPrefix(ref, "refs/heads/") || strings.Contains(ref, "..") {
		return "", false
	}
	// a branch lives in the common dir; other refs (per worktree) go to git
	if loose, err := safefile.ReadFile(filepath.Join(common, filepath.FromSlash(ref)), 4096); err == nil {
		s := strings.TrimSpace(string(loose))
		return s, isHash(s)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	packed, err := safefile.ReadFile(filepath.Join(common, "packed-refs"), 64<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false // unborn, or a ref git keeps elsewhere: git says
	} else if err != nil {
		return "", false
	}
	for l := range bytes.Lines(packed) {
		l = bytes.TrimRight(l, "\r\n")
		if h, name, found := bytes.Cut(l, []byte{' '}); found && string(name) == ref && isHash(string(h)) {
			return string(h), true
		}
	}
	return "", false
}

// gitDirs finds top's git directory (.git, or the one a .git file names,
// as a linked worktree or a submodule has) and its common directory.
func gitDirs(top string) (gitDir, common string, ok bool) {
	dot := filepath.Join(top, ".git")
	fi, err := os.Lstat(dot)
	switch {
	case err != nil:
		return "", "", false
	case fi.IsDir():
		gitDir = dot
	case fi.Mode().IsRegular():
		b, err := safefile.ReadFile(dot, 4096)
		if err != nil {
			return "", "", false
		}
		d, found := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
		if !found {
			return "", "", false
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(top, d)
		}
		gitDir = d
	default:
		return "", "", false
	}
	common = gitDir
	if b, err := safefile.ReadFile(filepath.Join(gitDir, "commondir"), 4096); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		common = c
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", "", false
	}
	return gitDir, common, true
}

func isHash(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
