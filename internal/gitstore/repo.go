package gitstore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/userdir"
	"github.com/loopkit/loopkit/internal/wfile"
)

// Dir is the private git directory's name inside a run directory.
const Dir = "git"

// ErrNoTree is an iteration whose tree was not recorded (no git work tree,
// or recorded before trees were kept).
var ErrNoTree = errors.New("no tree recorded for this iteration")

// Repo is a run's private git directory.
type Repo struct {
	GitDir string
	once   sync.Once
	loose  *looseDB // its loose objects, read without git (see objects)
	// moved: objects read besides the alternates (see borrowed)
	movedOnce sync.Once
	moved     []string
}

// Open returns the private git directory of the run at runDir; ErrNoTree
// when the run has none.
func Open(runDir string) (*Repo, error) {
	d := filepath.Join(runDir, Dir)
	if fi, err := os.Lstat(filepath.Join(d, "HEAD")); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s has no private git directory", ErrNoTree, runDir)
	}
	return &Repo{GitDir: d}, nil
}

// Create makes the run's private git directory when it has none and makes
// sure userObjects (the user's repository's objects) is one of its
// alternates. Only the directory's own files are written.
func Create(runDir, userObjects string) (*Repo, error) {
	return create(runDir, userObjects, "")
}

// create is Create for a user's repository of the given object format: a
// new private directory of a SHA-256 one says so in its config, or git
// would read its ids as SHA-1.
func create(runDir, userObjects, format string) (*Repo, error) {
	d := filepath.Join(runDir, Dir)
	for _, sub := range []string{"objects/info", "objects/pack", "refs/iterations"} {
		if err := os.MkdirAll(filepath.Join(d, sub), 0o700); err != nil {
			return nil, err
		}
	}
	// Made or found, none of them may be a link: writes would follow it
	// out of the store (into the user's .git, say).
	for _, sub := range []string{".", "objects", "objects/info", "objects/pack", "refs", "refs/iterations"} {
		if fi, err := os.Lstat(filepath.Join(d, sub)); err != nil || !fi.IsDir() {
			if err == nil {
				err = fmt.Errorf("%s is not a directory (a link?): move it away", filepath.Join(d, sub))
			}
			return nil, err
		}
	}
	head := filepath.Join(d, "HEAD")
	if _, err := os.Lstat(head); errors.Is(err, fs.ErrNotExist) && format == "sha256" {
		if err := wfile.WriteSynced(filepath.Join(d, "config"), []byte(sha256Config), 0o600); err != nil {
			return nil, err
		}
	}
	// Made once, fsynced: a power cut soon after left HEAD empty, and git
	// took the directory for no repository, for every iteration after
	// the reboot. One not as loopkit writes it is written again.
	if old, err := safefile.ReadFile(head, maxRef); err != nil || string(old) != headRef {
		os.Remove(head)
		if err := wfile.WriteSynced(head, []byte(headRef), 0o600); err != nil {
			return nil, err
		}
		if err := wfile.SyncDir(d); err != nil {
			return nil, err
		}
	}
	if userObjects == "" {
		return &Repo{GitDir: d}, nil // a plain folder: no objects to borrow
	}
	alt := filepath.Join(d, "objects", "info", "alternates")
	data, err := safefile.ReadFile(alt, maxAlternates)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if !slices.Contains(strings.Split(string(data), "\n"), userObjects) {
		data = append(liveAlternates(data), []byte(userObjects+"\n")...)
		os.Remove(alt + ".tmp")
		if err := wfile.WriteSynced(alt+".tmp", data, 0o600); err != nil {
			return nil, err
		}
		if err := os.Rename(alt+".tmp", alt); err != nil {
			return nil, err
		}
		if err := wfile.SyncDir(filepath.Dir(alt)); err != nil {
			return nil, err
		}
	}
	return &Repo{GitDir: d}, nil
}

// objects reads the repo's loose objects; its directories are found once.
func (r *Repo) objects() *looseDB {
	r.once.Do(func() { r.loose = r.looseObjects() })
	return r.loose
}

func (r *Repo) git() gitCmd {
	env := []string{"GIT_DIR=" + r.GitDir}
	if objs := r.borrowed(); len(objs) > 0 {
		env = append(env, "GIT_ALTERNATE_OBJECT_DIRECTORIES="+alternates(objs))
	}
	// run in the git directory, its work tree: in the caller's folder (the
	// workspace) git diff read each path's .gitattributes there, the
	// files of today for any iteration's patch, and waited forever on one
	// the agent made a FIFO
	return gitCmd{dir: r.GitDir, env: env, check: r.checkConfig}
}

// headRef is HEAD as loopkit writes it: no branch is ever made.
const headRef = "ref: refs/heads/main\n"

// sha256Config is the whole config create writes for a SHA-256 repository;
// a SHA-1 one has none.
const sha256Config = "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectformat = sha256\n"

// checkConfig refuses a private directory whose config loopkit did not
// write: it is read by every git call there, and could name a filter,
// a textconv or an fsmonitor to run.
func (r *Repo) checkConfig() error {
	path := filepath.Join(r.GitDir, "config")
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(sha256Config)) {
		if data, err := safefile.ReadFile(path, int64(len(sha256Config))); err == nil && string(data) == sha256Config {
			return nil
		}
	}
	return fmt.Errorf("%s was not written by loopkit (only loopkit writes there): remove it, or move the run's git directory away", path)
}

// Caps on what is read of the private git directory, which the agent can
// reach: far above what loopkit writes there (one line, one object path).
const (
	maxRef        = 256
	maxAlternates = 64 << 10
)

func iterRef(n int) string { return "refs/iterations/" + strconv.Itoa(n) }

// Snapshot writes the work tree at w.Top (untracked files included, ignored
// ones not) into the repo as a tree, through the repo's own index (its
// stat cache makes the next snapshot hash only what changed).
func (r *Repo) Snapshot(w *Where) (string, error) {
	return r.snapshotFrom(w, w.Index, w.HeadTree, false)
}

// snapshotFrom is Snapshot whose index, when the repo has none yet, starts
// as a copy of seed's, else (no seed, or a seed whose seal did not hold)
// from the tree from (see fromTree).
func (r *Repo) snapshotFrom(w *Where, seed, from string, fsyncEach bool) (string, error) {
	index := filepath.Join(r.GitDir, "index")
	if err := prepareIndex(seed, index, w.Index); err != nil {
		return "", err
	}
	objects, alts := filepath.Join(r.GitDir, "objects"), []string{w.Objects}
	wr := writer(w, r.GitDir, objects, alts, index)
	wr.fsyncEach = fsyncEach
	if err := fromTree(wr, index, from); err != nil {
		return "", err
	}
	return snapshot(wr, addArgs(w), index, objects, alts)
}

// SetIteration records tree as iteration n's: a commit (parent base, when
// known) under refs/iterations/<n>, replacing what a killed writer left.
// Neither id is looked up: a base that is not in the repo leaves Base(n)
// empty, as for an iteration without one.
func (r *Repo) SetIteration(n int, tree, base string) error {
	id, err := writeCommit(filepath.Join(r.GitDir, "objects"), tree, base, fmt.Sprintf("iteration %d", n), time.Now())
	if err != nil {
		return err
	}
	return r.setRef(iterRef(n), id)
}

// setRef points the loose ref name at id as `git update-ref` would in this
// directory of our own (files backend, refs never packed): the lock file,
// fsynced, renamed over the ref, and the directory fsynced, so the ref
// outlives a power cut as the commit line after it does. The caller
// holds the run's append lock, so a lock file left is a killed writer's.
func (r *Repo) setRef(name, id string) error {
	if !isObjectID(id) {
		return fmt.Errorf("ref %s: bad object id %q", name, id)
	}
	path := filepath.Join(r.GitDir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	lock := path + ".lock"
	os.Remove(lock) // never followed, if something else was put there
	if err := wfile.WriteSynced(lock, []byte(id+"\n"), 0o600); err != nil {
		return err
	}
	if err := os.Rename(lock, path); err != nil {
		os.Remove(lock)
		return err
	}
	return wfile.SyncDir(filepath.Dir(path))
}

// Commit is iteration n's commit, read from its ref without git (the refs
// are ours, loose, never packed).
func (r *Repo) Commit(n int) (string, error) {
	data, err := safefile.ReadFile(filepath.Join(r.GitDir, filepath.FromSlash(iterRef(n))), maxRef)
	if id := strings.TrimSpace(string(data)); err == nil && isObjectID(id) {
		return id, nil
	}
	return "", fmt.Errorf("%w: iteration %d", ErrNoTree, n)
}

// HasCommit tells whether id is a commit stored loose in the repo, as the
// iterations' commits are.
func (r *Repo) HasCommit(id string) bool {
	kind, _, _, done, err := r.objects().open(id)
	if err != nil {
		return false
	}
	done()
	return kind == "commit"
}

// Tree is the tree id of the work tree after iteration n: ErrNoTree when
// the iteration has no ref, another error when git cannot read what its
// ref names (objects or HEAD a power cut left empty, before they were
// fsynced): the tree was kept, and is damaged.
func (r *Repo) Tree(n int) (string, error) {
	out, err := r.git().run("rev-parse", "--verify", "-q", iterRef(n)+"^{tree}")
	if err == nil && trim(out) != "" {
		return trim(out), nil
	}
	commit, cerr := r.Commit(n)
	if cerr != nil {
		return "", cerr
	}
	if err == nil {
		err = errors.New("not found")
	}
	return "", fmt.Errorf("iteration %d's commit %s in %s cannot be read: %w", n, commit, r.GitDir, err)
}

// Base is the step's base of iteration n (the tree before its step):
// "" when the iteration had no step in git.
func (r *Repo) Base(n int) (string, error) {
	if _, err := r.Tree(n); err != nil {
		return "", err
	}
	out, err := r.git().run("rev-parse", "--verify", "-q", iterRef(n)+"^1^{tree}")
	if err != nil {
		return "", nil
	}
	return trim(out), nil
}

// Diff writes `git diff` between two trees (ids from Tree or Base) to w;
// args go before the trees (--stat, --color=always, --binary, ...).
func (r *Repo) Diff(w io.Writer, from, to string, args ...string) error {
	g := r.git()
	g.out = w
	_, err := g.run(append(append([]string{"diff", "--no-renames"}, args...), from, to, "--")...)
	return r.missing(err)
}

// Checkout writes the files of tree (modes, symlinks and all) into dir,
// which must not exist yet or be empty; nothing else is written.
func (r *Repo) Checkout(tree, dir string) error {
	_, statErr := os.Lstat(dir)
	made := errors.Is(statErr, fs.ErrNotExist)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// resolved once, and ours: a folder or link another user made first at
	// a predictable name (/tmp/iter3) would be theirs to read and swap
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	if err := userdir.Yours(real); err != nil {
		return fmt.Errorf("%w: write into a folder of yours", err)
	}
	if ents, err := os.ReadDir(real); err != nil || len(ents) > 0 {
		if err == nil {
			err = fmt.Errorf("%s is not empty: check out into a new or empty folder", dir)
		}
		return err
	}
	abs, err := filepath.Abs(real)
	if err != nil {
		return err
	}
	tmp, err := userdir.MkdirTemp("loopkit-checkout-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	g := r.git()
	g.env = append(g.env, "GIT_INDEX_FILE="+filepath.Join(tmp, "index"), "GIT_WORK_TREE="+abs)
	_, err = g.run("read-tree", tree)
	if err == nil {
		_, err = g.run("checkout-index", "-a", "-f")
	}
	if err != nil {
		// a tree cut short (a full disk) must not pass for the iteration's,
		// nor keep the retry out: DIR was empty, so all in it is git's
		if ents, rerr := os.ReadDir(abs); rerr == nil {
			for _, e := range ents {
				os.RemoveAll(filepath.Join(abs, e.Name()))
			}
		}
		if made {
			os.Remove(abs)
		}
	}
	return r.missing(err)
}

// AfterStep snapshots the work tree where (see Locate) into the private
// git directory under parent (created when missing), after importing the
// step's base objects (baseObjects, "" when the base was a clean HEAD);
// base is the step's base commit, whose files the snapshot keeps tracked
// when no index seeds it ("" unknown).
// loop-record keeps the tree as an iteration's; a reviewer's step diffs it
// against the step's base before the iteration exists.
func AfterStep(parent string, where *Where, baseObjects, base string) (repo *Repo, tree string, err error) {
	if repo, err = create(parent, where.Objects, where.Format); err != nil {
		return nil, "", err
	}
	if baseObjects != "" {
		if err := repo.Import(baseObjects); err != nil {
			return nil, "", fmt.Errorf("import the step's base: %w", err)
		}
	}
	// the step's base holds the work tree before it: git add writes the
	// blobs of what the step and its validation changed, few (fsyncEach)
	tree, err = repo.snapshotFrom(where, baseIndex(where, baseObjects), base, true)
	return repo, tree, err
}

// baseIndex is the index the run's first snapshot after a step starts
// from: the base's (Base leaves it beside the objects; its stat cache is
// as fresh as the step's start, and its entries' objects were just
// imported), else none. Never the user's: the agent has just run, and an
// index it wrote can give a file its true stat data and another blob, so
// that git add records content that is not on disk (every file is read).
func baseIndex(where *Where, baseObjects string) string {
	if baseObjects != "" {
		p := filepath.Join(baseObjects, "index")
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}
