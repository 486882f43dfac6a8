package recorder

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/loopkit/loopkit/internal/gitrun"
	"github.com/loopkit/loopkit/internal/gitstate"
	"github.com/loopkit/loopkit/internal/gitstore"
	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/store"
)

// DefaultMaxPatchBytes caps changes.patch when no limit is given.
const DefaultMaxPatchBytes = 10 << 20

// GitLimit is how long the git of an iteration's record may run: git can
// block for good on what the agent left in the work tree (a FIFO where it
// reads a .gitignore, .gitattributes or an included config), and the
// record ignores the signals that would end it. Past the longest a step or
// a validation may run, every git of the process is stopped
// (gitrun.Abort): the record goes on without the tree, and the driver's
// holder ends the run.
func GitLimit(s *runconfig.Settings) time.Duration {
	return max(s.Timeout.D(), s.ValidateTimeout.D())
}

// trees records the work tree after the iteration in the run's private git
// directory and, from the step's git_base, narrows files_changed to what
// the iteration changed and writes changes.patch (bounded, streamed).
// A folder outside git is snapshotted as well (gitstore.LocateAny).
func (r *Recorder) trees(dir string, it *record.IterationLog, in *record.Input) error {
	if !r.Trees {
		return nil
	}
	work := ""
	if v := in.Validation; v != nil {
		work = v.Dir
	}
	if s := in.Step; s != nil && s.Dir != "" {
		work = s.Dir
	}
	if work == "" {
		return nil
	}
	gitrun.TrustRun(r.St.RunDir(it.RunID))
	// After the first iteration the run's git directory knows where the
	// work tree is: git is asked only for HEAD (manifest.json's commit),
	// beside the snapshot rather than before it.
	where, known := gitstore.Known(r.St.RunDir(it.RunID), work)
	if known {
		r.head = askHead(where.Top)
	} else {
		if err := gitstore.Gone(r.St.RunDir(it.RunID)); err != nil {
			return err
		}
		var err error
		if where, err = gitstore.LocateAny(work); err != nil {
			if _, oerr := gitstore.Open(r.St.RunDir(it.RunID)); oerr == nil || diskRefused(err) {
				// the run recorded trees here: the agent moved or
				// replaced .git, and the work tree is out of reach
				return fmt.Errorf("the work tree %s: %w", work, err)
			}
			return nil // no folder to record
		}
		if top := store.GitTop(work); top != "" {
			r.head = &knownHead{top: top, sha: where.Head, done: closed}
		}
	}
	base, objects := "", ""
	if s := in.Step; s != nil && s.GitBase != nil {
		base = *s.GitBase
		if s.GitObjects != nil {
			objects = *s.GitObjects
		}
	}
	// a git add killed under the append lock (held now) left its lock:
	// every later snapshot of the run would fail on it; the agent can
	// make one too, a directory os.Remove would leave (a link inside
	// goes as a link)
	os.RemoveAll(filepath.Join(r.St.RunDir(it.RunID), gitstore.Dir, "index.lock"))
	// and a git killed writing an object (Abort, a killed group) its
	// objects/xx/tmp_obj_*: nothing else ever removes them
	gitstore.SweepTemp(r.St.RunDir(it.RunID))
	repo, tree, err := gitstore.AfterStep(r.St.RunDir(it.RunID), where, objects, base)
	if err != nil {
		return err
	}
	// The iteration's commit and its diff need only base and tree: git
	// makes one while it computes the other.
	set := make(chan error, 1)
	go func() { set <- repo.SetIteration(it.Iteration, tree, base) }()
	err = r.changes(dir, repo, where, it, in, base, tree)
	if serr := <-set; serr != nil {
		return serr
	}
	return err
}

// changes fills files_changed and writes changes.patch: from the step's
// base, or without one from HEAD (see dirtySinceHead).
func (r *Recorder) changes(dir string, repo *gitstore.Repo, where *gitstore.Where, it *record.IterationLog, in *record.Input, base, tree string) error {
	if base == "" {
		return r.dirtySinceHead(repo, where, tree, it, in)
	}
	cs, err := repo.Changes(base, tree)
	if err != nil {
		return err
	}
	it.FilesChanged = gitstore.Paths(cs)
	return r.writePatch(dir, repo, it, base, tree, cs)
}

func (r *Recorder) writePatch(dir string, repo *gitstore.Repo, it *record.IterationLog, base, tree string, cs []gitstore.Change) error {
	limit := r.MaxPatchBytes
	if limit <= 0 {
		limit = DefaultMaxPatchBytes
	}
	f, err := openOwn(filepath.Join(dir, ChangesPatch), os.O_RDWR|os.O_CREATE|os.O_TRUNC)
	if err != nil {
		return err
	}
	note := fmt.Sprintf("# The diff of this iteration is over %d bytes (config max_patch_bytes), or names a file\n"+
		"# too big to diff in bounded memory: only its summary is kept. The whole diff:\n"+
		"#   loop-view diff %s %d\n", limit, it.RunID, it.Iteration)
	res, err := repo.WritePatch(f, base, tree, cs, limit, note)
	if err == nil {
		it.DiffDigest = res.Digest
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if res.Summary {
		r.Log.Warn("changes.patch holds only a summary", "iteration", it.Iteration, "max_patch_bytes", limit)
	}
	return err
}

// dirtySinceHead fills files_changed of an iteration without a step base
// whose validation left it out (loop-validate --no-files-changed): the
// paths that differ from HEAD, as git status would list them.
func (r *Recorder) dirtySinceHead(repo *gitstore.Repo, where *gitstore.Where, tree string, it *record.IterationLog, in *record.Input) error {
	if in.Validation == nil || in.Validation.FilesChanged != nil {
		return nil
	}
	from := where.Head
	if h := r.head; from == "" && h != nil && h.top == where.Top {
		from = h.get()
	}
	if from == "" {
		from = gitstore.EmptyTree
	}
	cs, err := repo.Changes(from, tree)
	if err != nil {
		return err
	}
	it.FilesChanged = gitstore.Paths(cs)
	return nil
}

// knownHead is HEAD's commit ("" when unborn) of the work tree at top,
// known once done is closed.
type knownHead struct {
	top  string
	sha  string
	done chan struct{}
}

func (h *knownHead) get() string {
	<-h.done
	return h.sha
}

var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// askHead reads HEAD at top in the background (from .git's files, or
// from git when they are unusual).
func askHead(top string) *knownHead {
	h := &knownHead{top: top, done: make(chan struct{})}
	go func() {
		defer close(h.done)
		h.sha = gitstate.HeadCommit(top)
	}()
	return h
}
