package gitstate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// Base records the state of the work tree around dir as a commit: HEAD when
// the tree is clean, else a commit (parent HEAD, referenced by nothing) of
// the whole work tree, untracked files included — unlike `git stash create`,
// which leaves them out, so a file that was already there and untouched is
// never reported as changed by the step. ok is false outside git.
func Base(dir string) (base string, ok bool, err error) {
	top, err := TopLevel(dir)
	if err != nil {
		return "", false, nil
	}
	head, _ := Git(top, "rev-parse", "--verify", "-q", "HEAD^{commit}")
	head = bytes.TrimSpace(head)
	status, err := Git(top, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return "", true, err
	}
	if len(head) > 0 && len(status) == 0 {
		return string(head), true, nil
	}
	tree, err := worktreeTree(top)
	if err != nil {
		return "", true, err
	}
	args := []string{"commit-tree", tree, "-m", "loop-step base: the work tree before the step"}
	if len(head) > 0 {
		args = append(args, "-p", string(head))
	}
	out, err := gitEnv(top, identity, args...)
	if err != nil {
		return "", true, err
	}
	return strings.TrimSpace(string(out)), true, nil
}

// identity lets commit-tree work where no user is configured; the commit
// is never on a branch.
var identity = []string{
	"GIT_AUTHOR_NAME=loop-step", "GIT_AUTHOR_EMAIL=loop-step@localhost",
	"GIT_COMMITTER_NAME=loop-step", "GIT_COMMITTER_EMAIL=loop-step@localhost",
}

// ChangedSince lists the paths that differ between base and the work tree
// around dir now (commits made since included, untracked files included,
// ignored files not), relative to the repository root, and the binary diff.
func ChangedSince(dir, base string) (files []string, patch []byte, err error) {
	top, err := TopLevel(dir)
	if err != nil {
		return nil, nil, err
	}
	tree, err := worktreeTree(top)
	if err != nil {
		return nil, nil, err
	}
	names, err := Git(top, "diff", "--no-renames", "--name-only", "-z", base, tree, "--")
	if err != nil {
		return nil, nil, err
	}
	for _, n := range bytes.Split(names, []byte{0}) {
		if len(n) > 0 {
			files = append(files, string(n))
		}
	}
	if files == nil {
		files = []string{}
	}
	patch, err = Git(top, "diff", "--no-renames", "--binary", base, tree, "--")
	if err != nil {
		return nil, nil, err
	}
	return files, patch, nil
}

// TopLevel is the root of the work tree holding dir.
func TopLevel(dir string) (string, error) {
	out, err := Git(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// worktreeTree writes the work tree as it is (untracked files included) as a
// tree object, through a copy of the index so the user's index is never
// touched; the copy keeps git's stat cache, so only changed files are hashed.
func worktreeTree(top string) (string, error) {
	idxPath, err := Git(top, "rev-parse", "--path-format=absolute", "--git-path", "index")
	if err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp("", "loopkit-index-*")
	if err != nil {
		return "", err
	}
	tmpPath := tmp.Name()
	defer os.Remove(tmpPath)
	src, err := os.Open(strings.TrimSpace(string(idxPath)))
	switch {
	case err == nil:
		_, err = io.Copy(tmp, src)
		src.Close()
	case errors.Is(err, os.ErrNotExist):
		err = nil // a repository without an index yet: start empty
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("copy git index: %w", err)
	}
	if fi, err := os.Stat(tmpPath); err == nil && fi.Size() == 0 {
		os.Remove(tmpPath) // git refuses an empty file as an index
	}
	env := []string{"GIT_INDEX_FILE=" + tmpPath}
	if _, err := gitEnv(top, env, "add", "-A", "--", "."); err != nil {
		return "", err
	}
	out, err := gitEnv(top, env, "write-tree")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// gitEnv is Git with extra environment variables.
func gitEnv(dir string, env []string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
