package gitstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/loopkit/loopkit/internal/lazyre"
	"github.com/loopkit/loopkit/internal/safefile"
)

// runAlternates is the lines of the alternates file of the run at
// runDir's git directory, read as safefile reads (never a link, a fifo or
// more than maxAlternates); nil when there is none or it is refused.
func runAlternates(runDir string) []string {
	data, err := safefile.ReadFile(filepath.Join(runDir, Dir, "objects", "info", "alternates"), maxAlternates)
	if err != nil {
		return nil
	}
	return splitLines(data)
}

// recorded is the run's first alternate, the objects of the repository
// its trees were recorded in, and whether that directory is gone ("" and
// false when there is none: a plain folder's run, or no trees yet).
func recorded(runDir string) (objects string, gone bool) {
	alts := runAlternates(runDir)
	if len(alts) == 0 || !filepath.IsAbs(alts[0]) {
		return "", false
	}
	_, err := os.Stat(alts[0])
	return alts[0], errors.Is(err, fs.ErrNotExist)
}

// movedTo is the objects of the repository the run's store is in now,
// when objects, the run's recorded repository's (recorded, gone), is gone
// with the whole folder that held it, and the folder holding the store is
// the top of a work tree: the workspace was copied or moved with its store
// (a CI cache restored into another checkout). "" otherwise: a .git the
// agent removed leaves its folder, and git a repository further up. The
// caller passes what recorded read, so the alternates are read once.
func movedTo(runDir, objects string) string {
	old := strings.TrimSuffix(objects, string(filepath.Separator)+filepath.Join(".git", "objects"))
	if old == objects {
		return ""
	}
	if _, err := os.Lstat(old); !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	ws := filepath.Dir(filepath.Dir(filepath.Dir(runDir))) // <ws>/<store>/runs/<id>
	w, err := Locate(ws)
	if err != nil {
		return ""
	}
	a, aerr := os.Stat(w.Top)
	b, berr := os.Stat(ws)
	if aerr != nil || berr != nil || !os.SameFile(a, b) {
		return ""
	}
	return w.Objects
}

// borrowed is the objects the Repo's git reads besides its alternates,
// found once: when the recorded repository is gone, movedTo's and the
// current folder's repository's (a merged fleet store looked at from a
// clone). Objects are only read from them.
func (r *Repo) borrowed() []string {
	r.movedOnce.Do(func() {
		run := filepath.Dir(r.GitDir)
		objects, gone := recorded(run)
		if !gone {
			return
		}
		if m := movedTo(run, objects); m != "" {
			r.moved = append(r.moved, m)
		}
		if w, err := Locate("."); err == nil && !slices.Contains(r.moved, w.Objects) {
			r.moved = append(r.moved, w.Objects)
		}
	})
	return r.moved
}

// missing says, for a git error of a run whose recorded repository is
// gone, which objects are missing and how to get them; for one whose
// repository is there but no longer holds an object the run's trees
// share with it (pruned by git gc), which object is gone.
func (r *Repo) missing(err error) error {
	if err == nil {
		return nil
	}
	objects, gone := recorded(filepath.Dir(r.GitDir))
	if gone {
		return fmt.Errorf("objects of the repository the run was recorded in (%s) are not here: "+
			"run loop-view in a clone of it holding the run's commits (a shallow clone: git fetch --unshallow)", objects)
	}
	m := lostObject.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	what := "object " + m[3]
	if m[1] != "" {
		what = m[1] + " (object " + m[3] + ")"
	} else if m[2] != "" {
		what = "tree " + m[3]
	}
	from := "the run's objects"
	if objects != "" {
		from = objects + ", whose objects the run's trees share"
	}
	return fmt.Errorf("%s is gone from %s: pruned (git gc) after the run recorded it, "+
		"so this part of the run's trees cannot be read", what, from)
}

// lostObject is what git says of an object it cannot find: `unable to
// read sha1 file of PATH (ID)` (checkout-index), `unable to read [tree] ID`
// (diff, read-tree), `bad object ID`.
var lostObject = lazyre.New(`(?:unable to read sha1 file of (.+) \(|unable to read (tree )?|bad object )([0-9a-f]{40}(?:[0-9a-f]{24})?)\b`)

// liveAlternates is the alternates file's lines whose directory still
// exists: a gone one (the workspace moved) would only have git complain.
func liveAlternates(data []byte) []byte {
	var out []byte
	for _, l := range splitLines(data) {
		if l == "" {
			continue
		}
		if _, err := os.Stat(l); filepath.IsAbs(l) && errors.Is(err, fs.ErrNotExist) {
			continue
		}
		out = append(out, l+"\n"...)
	}
	return out
}
