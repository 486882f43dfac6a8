// Package store is the on-disk store: runs, append-only logs, locks and
// atomic file writes. Every write path here survives a process killed at
// any instant (see docs/store.md).
package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// File and directory modes: transcripts can hold secrets.
const (
	DirMode  os.FileMode = 0o700
	FileMode os.FileMode = 0o600
)

// Names inside a run directory.
const (
	RunFile        = "run.json"
	IterationsFile = "iterations.jsonl"
	AttemptsFile   = "attempts.jsonl"
	EventsFile     = "events.jsonl"
	ReportFile     = "report.tsv"
	ManifestFile   = "manifest.json"
	VerifyFile     = "verify.jsonl" // the final verification's commands
	VerifyDir      = "verify"       // their streams: NNN.stdout, NNN.stderr
	StuckFile      = "stuck.md"
	AppendLock     = "append.lock"
	LiveLock       = "live.lock"
	DriverLock     = "driver.lock" // held by the one driver of a run for its whole life
	IterationsDir  = "iterations"
	AttemptsDir    = "attempts"
	ContextDir     = "context"
)

// Files of an iteration folder (and, for the agent's, an attempt folder).
const (
	ValidationStdout = "validation.stdout"
	ValidationStderr = "validation.stderr"
	AgentStdout      = "agent.stdout"
	AgentStderr      = "agent.stderr"
	PromptFile       = "prompt.txt"
	MetaFile         = "meta.json"
	OutputFile       = "output.json"
	GuardLog         = "guard.log"
	ExecutorLog      = "executor.log"
	RunnerErrorLog   = "runner_error.log"
	ChangesPatch     = "changes.patch"
)

// ErrNoSuchRun is returned by readers for a run that does not exist.
var ErrNoSuchRun = errors.New("no such run")

// validRunIDChars is ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$ checked by hand:
// compiling that regexp (127 copies of the class) took every command about
// half a millisecond at start, and the driver starts three an iteration.
func validRunIDChars(id string) bool {
	if len(id) == 0 || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// ValidRunID reports whether id may name a run (no "..", no "/", no
// leading dot, not empty).
func ValidRunID(id string) error {
	if !validRunIDChars(id) || strings.Contains(id, "..") {
		return fmt.Errorf("invalid run id %q (want letters, digits, '.', '_', '-', starting with a letter or digit, no '..', at most 128)", id)
	}
	return nil
}

// Store is a loopkit store rooted at Root (usually <workspace>/.loop).
type Store struct {
	Root string
}

// DefaultRoot is .loop at the git top level above dir, else in dir itself.
// It walks up looking for .git instead of running git, to keep start-up cheap.
func DefaultRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if top := GitTop(abs); top != "" {
		return filepath.Join(top, ".loop"), nil
	}
	return filepath.Join(abs, ".loop"), nil
}

// GitTop returns the nearest directory at or above dir that holds .git, or "".
func GitTop(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// Open returns the store at root; it creates nothing. The root is resolved
// once, here (it may be a symlink: .loop on another disk, or macOS's /var):
// below it nothing is ever followed. A store whose runs/ or spool/ is not a
// real directory is refused, so nothing is read, written or deleted
// through a link out of the store.
func Open(root string) (*Store, error) {
	// LOOP_STORE='~/x' quoted, or --store=~/x from zsh: no shell expanded it
	if root == "~" || strings.HasPrefix(root, "~/") {
		return nil, fmt.Errorf("store %q: %w", root, ErrTilde)
	}
	if err := sameAsDriver(root); err != nil {
		return nil, err
	}
	abs, err := resolveRoot(root)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(abs); errors.Is(err, os.ErrPermission) {
		if err := barrier(abs, abs); err != nil {
			return nil, err
		}
	} else if err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("store %s is not a directory", abs)
	} else if err == nil {
		if err := notOurs(abs, fi); err != nil {
			return nil, err
		}
	}
	s := &Store{Root: abs}
	for _, d := range []string{s.RunsDir(), s.SpoolDir()} {
		if err := realDir(d); errors.Is(err, os.ErrPermission) {
			if err := barrier(abs, d); err != nil {
				return nil, err
			}
			return nil, err
		} else if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	return s, nil
}

// ErrTilde: a store named ~ or ~/... is refused, never made a folder named ~.
var ErrTilde = errors.New(`nothing expands ~ here (it would name a folder ~): give the full path ("$HOME/..." in a shell)`)

// IDEnv names the store the driver started with, for the commands it
// starts: "DEV:INODE" of $LOOP_STORE then (see ID).
const IDEnv = "LOOPKIT_STORE_ID"

// ID is "DEV:INODE" of the folder at root (a link followed).
func ID(root string) (string, error) {
	fi, err := os.Stat(root)
	if err != nil {
		return "", err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", errors.New("no device and inode")
	}
	return fmt.Sprintf("%d:%d", st.Dev, st.Ino), nil
}

// sameID says whether path is still the folder whose ID the driver put in
// the environment variable env; true when env is unset (not started by a
// driver: the person's own call). An unreadable path is not the same.
func sameID(path, env string) bool {
	want := os.Getenv(env)
	if want == "" {
		return true
	}
	id, err := ID(path)
	return err == nil && id == want
}

// sameAsDriver refuses root, when it is the driver's $LOOP_STORE, if it
// no longer names the folder the driver started with ($LOOPKIT_STORE_ID):
// the agent moved the store away and put a link to another folder in its
// place, and the command would make a store there.
func sameAsDriver(root string) error {
	top := os.Getenv("LOOP_STORE")
	if top == "" {
		return nil
	}
	if abs, err := filepath.Abs(root); err != nil || filepath.Clean(abs) != filepath.Clean(top) {
		return nil // another store: a nested run's
	}
	if !sameID(root, IDEnv) {
		if gone(root) {
			return fmt.Errorf("store %s is gone (moved or removed during the run; git clean -x removes it with the ignored files, git clean -x -e .loop keeps it): nothing is written there", root)
		}
		return fmt.Errorf("store %s is not the folder the driver started with (moved during the run, or a link put in its place): nothing is written there", root)
	}
	return nil
}

// gone tells whether nothing is at path any more: the person removed the
// folder a driver works with (git clean -x, rm -r), as opposed to a link
// or another folder put in its place.
func gone(path string) bool {
	_, err := os.Lstat(path)
	return errors.Is(err, os.ErrNotExist)
}

// resolveRoot makes root absolute and resolves the symlinks of its longest
// existing prefix (the rest does not exist yet, so holds none), spelled as
// its folders list it (RealCase).
func resolveRoot(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	if r, ok := ResolvePrefix(abs); ok {
		return RealCase(r), nil
	}
	return abs, nil
}

// ResolvePrefix is path with the symlinks of its longest existing prefix
// resolved (the rest does not exist yet, so holds none); false, and path
// cleaned, when no prefix resolves.
func ResolvePrefix(path string) (string, bool) {
	rest := ""
	for p := filepath.Clean(path); ; {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest), true
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest), false
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// realDir checks that path is a directory and not a symlink to one.
func realDir(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("store: %s is not a real directory (a symlink?); refusing to use it: move it away", path)
	}
	return notOurs(path, fi)
}

// Init creates the store's root, runs and spool directories (0700 whatever
// the umask) and the self-ignoring .gitignore, so the store never dirties
// the user's repository. A root another tool created with a wider mode is
// narrowed to 0700: transcripts can hold secrets.
func (s *Store) Init() error {
	if _, err := os.Lstat(s.Root); errors.Is(err, os.ErrNotExist) {
		if err := foreignParent(s.Root); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(s.Root, DirMode); err != nil {
		return fmt.Errorf("create store: %w", err)
	}
	for _, d := range []string{s.Root, s.RunsDir(), s.SpoolDir()} {
		if err := os.Mkdir(d, DirMode); err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("create store: %w", err)
		}
		if err := realDir(d); err != nil {
			return err
		}
		if err := narrow(d); noModes(err) {
			return lacking(ErrNoModes, s.Root, err)
		} else if err != nil {
			return fmt.Errorf("create store: %w", err)
		}
	}
	gi := filepath.Join(s.Root, ".gitignore")
	if _, err := os.Lstat(gi); errors.Is(err, os.ErrNotExist) {
		if err := WriteFileAtomic(gi, []byte("*\n"), FileMode); noModes(err) {
			return lacking(ErrNoModes, s.Root, err)
		} else if err != nil {
			return fmt.Errorf("create store: %w", err)
		}
	}
	return nil
}

// narrow sets a directory of ours that others may enter to 0700.
func narrow(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil || fi.Mode().Perm()&0o077 == 0 {
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return nil // not ours to change
	}
	return os.Chmod(dir, DirMode)
}

// RunsDir holds one directory per run.
func (s *Store) RunsDir() string { return filepath.Join(s.Root, "runs") }

// SpoolDir holds streams of commands not yet recorded.
func (s *Store) SpoolDir() string { return filepath.Join(s.Root, "spool") }

// ConfigFile is the store's optional key=value settings file.
func (s *Store) ConfigFile() string { return filepath.Join(s.Root, "config") }

// RunDir is the directory of run id (which must be valid).
func (s *Store) RunDir(id string) string { return filepath.Join(s.RunsDir(), id) }

// RunPath joins names below the run's directory.
func (s *Store) RunPath(id string, names ...string) string {
	return filepath.Join(append([]string{s.RunDir(id)}, names...)...)
}

// IterationDir is the folder of iteration n of a run (001, 002, ...).
func (s *Store) IterationDir(id string, n int) string {
	return filepath.Join(s.RunDir(id), IterationsDir, fmt.Sprintf("%03d", n))
}

// AttemptDir is the folder of attempt n of a run (attempts/001, ...).
func (s *Store) AttemptDir(id string, n int) string {
	return filepath.Join(s.RunDir(id), AttemptsDir, fmt.Sprintf("%03d", n))
}

// RunExists reports whether the run's directory holds a run.json.
func (s *Store) RunExists(id string) bool {
	return s.FindRun(id) == nil
}

// FindRun is nil when the run's directory holds a run.json. A run that is
// not there is ErrNoSuchRun, naming the run and the store; a run that is
// there but cannot be read (permission denied, a run.json that is no file)
// says so, so that no command calls an unreadable run missing.
func (s *Store) FindRun(id string) error {
	if err := s.otherCase(id); err != nil {
		return err
	}
	path := s.RunPath(id, RunFile)
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%w: %s (store %s)", ErrNoSuchRun, id, s.Root)
	case errors.Is(err, os.ErrPermission):
		return s.closedRun(id, err)
	case err != nil:
		return fmt.Errorf("run %s cannot be read: %w", id, err)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("run %s cannot be read: %s is not a regular file", id, path)
	}
	return nil
}

// otherCase is ErrNoSuchRun when runs/ lists id in another case: a file
// system that ignores case opens runs/Foo for foo, yet a run is its
// folder's name (its settings kept by it; a repair would rewrite its
// run_id to foo).
func (s *Store) otherCase(id string) error {
	if real := realName(s.RunsDir(), id); real != id {
		return fmt.Errorf("%w: %s (store %s); the run is %s: this file system ignores case", ErrNoSuchRun, id, s.Root, real)
	}
	return nil
}

// MkdirRun makes the directories names (each inside the one before) below
// an existing run's directory and returns the last one's path. It never
// creates the run directory itself, and refuses a symlink at any level, so
// nothing is written outside the run.
func (s *Store) MkdirRun(id string, names ...string) (string, error) {
	if err := s.checkRunDir(id); err != nil {
		return "", err
	}
	p := s.RunDir(id)
	for i, n := range names {
		p = filepath.Join(p, n)
		err := os.Mkdir(p, DirMode)
		if err == nil {
			if i == 0 && len(names) > 1 { // a new iterations/ or attempts/
				if err := SyncDir(s.RunDir(id)); err != nil {
					return "", err
				}
			}
			continue
		}
		if !errors.Is(err, os.ErrExist) {
			return "", err
		}
		if fi, err := os.Lstat(p); err != nil || !fi.IsDir() {
			return "", fmt.Errorf("%s is not a directory (a symlink?); refusing to write through it", p)
		}
	}
	return p, nil
}
