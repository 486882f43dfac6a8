package gitstore

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// Where is what git says of the work tree around a directory.
type Where struct {
	Top     string // the work tree's top level
	Objects string // its repository's object directory (the common one of a linked worktree)
	Index   string // its index file
	// Head and HeadTree are HEAD's commit and tree ("" on an unborn branch).
	Head, HeadTree string
	// Format is the repository's object format (sha1, sha256; "" unknown).
	Format string
	// Plain is set for a folder outside git (LocateAny): no repository,
	// objects, index or HEAD of the user's; the snapshot runs in a git
	// directory of loopkit's with the folder as its work tree.
	Plain bool
}

// LocateAny is Locate, or for a folder that is in no git work tree (no
// .git above it) that folder itself, Plain: its snapshots go through an
// index of loopkit's own, so its changes are recorded as a repository's.
func LocateAny(dir string) (*Where, error) {
	w, err := Locate(dir)
	if err == nil {
		return w, nil
	}
	top, aerr := filepath.Abs(dir)
	if aerr != nil {
		return nil, err
	}
	if real, rerr := filepath.EvalSymlinks(top); rerr == nil {
		top = real
	}
	if fi, serr := os.Stat(top); serr != nil || !fi.IsDir() || inGit(top) {
		return nil, err // a repository git refused (ownership, say) is no plain folder
	}
	return &Where{Top: top, Plain: true}, nil
}

// inGit says whether dir or a folder above it has a .git entry.
func inGit(dir string) bool {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return false
		}
		d = parent
	}
}

// StoreName is the store's folder in a workspace, never part of a plain
// folder's snapshot (in git, its own .gitignore keeps it out).
const StoreName = ".loop"

// Locate asks git, in one call, where the work tree around dir is; an
// error outside a work tree.
func Locate(dir string) (*Where, error) {
	// Without --verify, rev-parse prints the paths even when HEAD is unborn
	// (then it fails on the revisions, and their lines are missing).
	args := []string{"rev-parse", "--path-format=absolute", "--show-toplevel", "--show-object-format",
		"--git-path", "objects", "--git-path", "index", "HEAD^{commit}", "HEAD^{tree}", "--"}
	cmd := gitCmd{dir: dir}.command(args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	lines := splitLines(out)
	if len(lines) < 4 {
		if err != nil {
			return nil, gitError(args, err, stderr.Bytes())
		}
		return nil, fmt.Errorf("git rev-parse: unexpected output %q", out)
	}
	w := &Where{Top: lines[0], Format: lines[1], Objects: lines[2], Index: lines[3]}
	if !filepath.IsAbs(w.Top) || !filepath.IsAbs(w.Objects) || !filepath.IsAbs(w.Index) || (w.Format != "sha1" && w.Format != "sha256") {
		// a snapshot of "wrapper says hi" would fail later, less clearly
		return nil, fmt.Errorf("git rev-parse printed %q where its paths go: is the git on PATH a wrapper that prints to stdout?", lines[0])
	}
	if len(lines) >= 6 && isObjectID(lines[4]) && isObjectID(lines[5]) {
		w.Head, w.HeadTree = lines[4], lines[5]
	}
	return w, nil
}

// ObjectsOf is the object directory of the user's repository around dir
// (its common one, for a linked worktree), and the work tree's top.
func ObjectsOf(dir string) (top, objects string, err error) {
	w, err := Locate(dir)
	if err != nil {
		return "", "", err
	}
	return w.Top, w.Objects, nil
}

func isObjectID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
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

// Known is where the work tree around dir is, taken without git from what
// the run's git directory at runDir already holds: the top found by
// walking up to a .git entry, the objects from the directory's one
// alternate (which Locate gave when it was made). Index and Head are left
// empty. ok is false when that is not certain (no git directory yet,
// several alternates, a missing one): then ask Locate.
func Known(runDir, dir string) (w *Where, ok bool) {
	alts := runAlternates(runDir)
	if len(alts) != 1 || !filepath.IsAbs(alts[0]) {
		return nil, false
	}
	if fi, err := os.Stat(alts[0]); err != nil || !fi.IsDir() {
		return nil, false
	}
	if _, err := os.Stat(filepath.Join(runDir, Dir, "index")); err != nil {
		return nil, false // the first snapshot seeds its index from the user's
	}
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return &Where{Top: d, Objects: alts[0]}, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, false
		}
		d = parent
	}
}

// Gone says why the work tree of the run at runDir can no longer be
// recorded: the repository its git directory was made with (its first
// alternate, the user's objects) is no longer there, the agent having
// removed the work tree's .git. git would find a repository further up
// (a home directory's dotfiles) and the snapshot would take all of it as
// the run's work tree. nil while it is there, for a plain folder's run,
// or a run with no trees yet.
func Gone(runDir string) error {
	if runDir == "" {
		return nil
	}
	objects, gone := recorded(runDir)
	if !gone || movedTo(runDir, objects) != "" {
		return nil
	}
	return fmt.Errorf("the repository the run started in is gone (%s no longer exists: was its .git removed?); "+
		"no repository further up is recorded in its place", objects)
}
