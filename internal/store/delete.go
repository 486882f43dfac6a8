package store

import (
	"errors"
	"fmt"
	"github.com/loopkit/loopkit/internal/runconfig"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/loopkit/loopkit/internal/gitrun"
	"github.com/loopkit/loopkit/internal/procid"
	"github.com/loopkit/loopkit/internal/quote"
	"github.com/loopkit/loopkit/internal/userdir"
)

// TombPrefix starts the name a run directory is renamed to before removal.
// A name starting with "." is not a valid run id, so no reader sees it as a run.
const TombPrefix = ".tomb-"

// ErrBusy means a run was not deleted because it changed since it was
// decided: a process holds its live or append lock, or its updated_at moved.
var ErrBusy = errors.New("run is in use")

// Deleter removes runs through an os.Root on runs/, so no symlink, inside a
// run or as the run directory itself, is ever followed out of the
type Deleter struct {
	st   *Store
	root *os.Root
	dir  string // runs/, for read-only walks
	now  func() time.Time
	// rename and removeAll are the root's (a test stands in for
	// overlayfs, NFS or FUSE)
	rename    func(oldname, newname string) error
	removeAll func(name string) error
}

// SetNow sets the clock that names tombstones (tests, and a clean that
// decided at one instant).
func (d *Deleter) SetNow(now func() time.Time) { d.now = now }

// OpenDeleter opens the store's runs/ directory for deleting. Deleting is
// loop-clean's alone; the policy deciding what to delete is elsewhere.
func OpenDeleter(st *Store) (*Deleter, error) {
	root, err := os.OpenRoot(st.RunsDir())
	if err != nil {
		return nil, err
	}
	return &Deleter{st: st, root: root, dir: st.RunsDir(), now: time.Now,
		rename: root.Rename, removeAll: root.RemoveAll}, nil
}

// Close releases the runs/ directory.
func (d *Deleter) Close() error { return d.root.Close() }

// Delete removes run id if it is still as decided (updated_at unchanged, no
// lock held), and returns the bytes freed. It renames the run to a tombstone
// first: a crash at any point leaves the run whole or a tombstone, never a
// half-deleted run under its name (where the directory cannot move, what
// is left has no run.json and the tombstone names it: markDeleting).
func (d *Deleter) Delete(id string, updatedAt int64) (int64, error) {
	fi, err := d.root.Lstat(id)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil // deleted meanwhile: nothing to free
	}
	if err != nil {
		return 0, err
	}
	unlock := func() {}
	if fi.IsDir() {
		if unlock, err = d.claim(id, updatedAt); err != nil {
			return 0, err
		}
	}
	tomb, err := d.entomb(id)
	if errors.Is(err, syscall.EXDEV) && fi.IsDir() {
		tomb, err = d.markDeleting(id)
	}
	// The locks go before the removal: on NFS or FUSE a file still open
	// is not removed but renamed (.nfs*, .fuse_hidden*), and its
	// directory, not empty, would stay.
	unlock()
	if err != nil {
		return 0, err
	}
	return d.finish(tomb)
}

// entomb renames run id to a tombstone, durably, and returns its name.
func (d *Deleter) entomb(id string) (string, error) {
	tomb := d.tombName(id)
	if err := d.rename(id, tomb); err != nil {
		return "", fmt.Errorf("rename %s to a tombstone: %w", id, err)
	}
	return tomb, d.syncRuns()
}

func (d *Deleter) tombName(id string) string {
	return fmt.Sprintf("%s%s-%d", TombPrefix, id, d.now().UnixMilli())
}

// markDeleting stands in for entomb where the run's directory cannot be
// moved (overlayfs, as in Docker, with the run in an image's layer says
// EXDEV): an empty tombstone names the run, then its run.json goes, so
// no reader meets it half-removed; finish, or the next clean, removes
// the rest.
func (d *Deleter) markDeleting(id string) (string, error) {
	tomb := d.tombName(id)
	if err := d.root.Mkdir(tomb, DirMode); err != nil {
		return "", fmt.Errorf("mark %s deleted: %w", id, err)
	}
	if err := d.syncRuns(); err != nil {
		return "", err
	}
	if err := d.root.Remove(filepath.Join(id, RunFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("mark %s deleted: %w", id, err)
	}
	return tomb, nil
}

// finish removes a tombstone and, when it only marks its run (see
// markDeleting: the run's directory is there without a run.json), the
// run; it returns the bytes freed.
func (d *Deleter) finish(tomb string) (int64, error) {
	d.forget(tomb)
	n := d.TombBytes(tomb)
	if id := tombRun(tomb); id != "" && d.unmarked(id) {
		if err := d.removeAll(id); err != nil {
			return n, fmt.Errorf("remove run %s: %w", id, err)
		}
	}
	if err := d.removeAll(tomb); err != nil {
		if !errors.Is(err, fs.ErrPermission) {
			return n, fmt.Errorf("remove tombstone %s: %w", tomb, err)
		}
		// a folder in it the agent or the person narrowed (chmod a-w,
		// 000): the run is this user's to delete all the same
		if stuck := openUp(d.root, d.dir, tomb); stuck != nil {
			return n, stuck
		}
		if err := d.removeAll(tomb); err != nil {
			return n, fmt.Errorf("remove tombstone %s: %w", tomb, err)
		}
	}
	return n, nil
}

// openUp gives this user back the right to list and empty every folder
// of theirs below name in root (at dir), 0700, the store's mode, never
// following a link. It returns why a folder could not be, naming it:
// another user's (a run an older loopkit wrote to under sudo), which only
// they can remove.
func openUp(root *os.Root, dir, name string) error {
	fi, err := root.Lstat(name)
	if err != nil || !fi.IsDir() {
		return nil
	}
	path := filepath.Join(dir, name)
	if id, ok := userdir.Owner(fi); ok && id != userdir.UID() {
		fix := "rm -rf " + path + " as " + userdir.Who(id)
		if id == 0 {
			fix = "sudo rm -rf " + path
		}
		return fmt.Errorf("cannot remove %s: it belongs to %s, not to %s: %s", path, userdir.Who(id), userdir.Who(userdir.UID()), fix)
	}
	if fi.Mode().Perm()&0o700 != 0o700 {
		if err := root.Chmod(name, DirMode); err != nil {
			return fmt.Errorf("cannot remove %s: %w", path, err)
		}
	}
	f, err := root.Open(name)
	if err != nil {
		return nil
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	for _, n := range names {
		if err := openUp(root, dir, filepath.Join(name, n)); err != nil {
			return err
		}
	}
	return nil
}

// TombBytes is what finishing a tombstone frees: its files, and those of
// the run it marks (see markDeleting).
func (d *Deleter) TombBytes(tomb string) int64 {
	n := d.Bytes(tomb)
	if id := tombRun(tomb); id != "" && d.unmarked(id) {
		n += d.Bytes(id)
	}
	return n
}

// unmarked reports a run directory that has lost its run.json.
func (d *Deleter) unmarked(id string) bool {
	fi, err := d.root.Lstat(id)
	if err != nil || !fi.IsDir() {
		return false
	}
	_, err = d.root.Lstat(filepath.Join(id, RunFile))
	return errors.Is(err, fs.ErrNotExist)
}

// claim takes the run's live and append locks without waiting and checks
// run.json still says what was decided. The locks are held over the rename,
// so no process works on the run while it moves, and a writer waiting for
// the append lock finds, once it has it, that it locked a deleted run.
func (d *Deleter) claim(id string, updatedAt int64) (func(), error) {
	var held []*Lock
	unlock := func() {
		for _, l := range held {
			l.Unlock()
		}
	}
	for _, try := range []func(string) (*Lock, error){d.st.TryLockLiveExclusive, d.st.TryLockAppend} {
		l, err := try(id)
		if errors.Is(err, ErrLocked) {
			unlock()
			return nil, fmt.Errorf("%w: a lock of the run is held", ErrBusy)
		}
		if err != nil {
			unlock()
			return nil, err
		}
		held = append(held, l)
	}
	h, err := d.st.ReadRunHead(id)
	if err != nil || h.UpdatedAt != updatedAt {
		unlock()
		return nil, fmt.Errorf("%w: run.json changed since it was read", ErrBusy)
	}
	return unlock, nil
}

// syncRuns makes the rename durable before anything is removed.
func (d *Deleter) syncRuns() error {
	dir, err := d.root.Open(".")
	if err != nil {
		return err
	}
	defer dir.Close()
	if err := dir.Sync(); err != nil {
		return fmt.Errorf("sync runs directory: %w", err)
	}
	return nil
}

// Bytes is the size of the regular files below name in runs/ (a run or a
// tombstone), counting no symlink's target; a symlink itself counts 0.
func (d *Deleter) Bytes(name string) int64 {
	fd, err := unix.Open(filepath.Join(d.dir, name), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0 // gone, or a symlink: nothing of ours to size
	}
	return treeBytes(fd)
}

// Tombstones lists the tombstones a killed clean left in runs/, and the
// half-built run directories of creators that died (NewRunPrefix).
func (d *Deleter) Tombstones() ([]string, error) {
	dir, err := d.root.Open(".")
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	var tombs []string
	for _, n := range names {
		if strings.HasPrefix(n, TombPrefix) || deadCreator(n) {
			tombs = append(tombs, n)
		}
	}
	return tombs, nil
}

// FinishTombstones removes the tombstones a killed clean left behind and
// returns how many went and how many did not, the bytes freed, and what
// kept the others, on one line: one that cannot go (another user's
// folder in it) is no reason to leave the rest, nor to stop the clean.
func (d *Deleter) FinishTombstones() (done, failed int, freed int64, err error) {
	tombs, err := d.Tombstones()
	if err != nil {
		return 0, 0, 0, err
	}
	var errs []error
	for _, t := range tombs {
		n, err := d.finish(t)
		freed += n
		if err != nil {
			errs = append(errs, err)
		}
	}
	return len(tombs) - len(errs), len(errs), freed, quote.Errors(errs)
}

// forget removes what the state directory keeps of the run a tombstone
// held (its git config hash, its settings): a deleted run leaves nothing
// behind, a clean killed after its rename included. A failure leaves a
// few small files named by a hash, so it is not an error.
func (d *Deleter) forget(tomb string) {
	if id := tombRun(tomb); id != "" {
		_ = gitrun.Forget(d.st.RunDir(id))
		runconfig.Forget(d.st.RunDir(id))
	}
}

// tombRun is the id of the run a tombstone held, "" for none.
func tombRun(tomb string) string {
	rest, ok := strings.CutPrefix(tomb, TombPrefix)
	i := strings.LastIndexByte(rest, '-')
	if !ok || i <= 0 || ValidRunID(rest[:i]) != nil {
		return ""
	}
	return rest[:i]
}

// deadCreator reports a ".new-<id>-<pid>-<hex>" directory whose creator is gone.
func deadCreator(name string) bool {
	if !strings.HasPrefix(name, NewRunPrefix) {
		return false
	}
	parts := strings.Split(name, "-")
	if len(parts) < 3 {
		return false
	}
	pid, err := strconv.Atoi(parts[len(parts)-2])
	if err != nil || pid <= 0 {
		return false
	}
	// a zombie (killed, its parent gone, never reaped) holds nothing
	return !procid.Running(pid)
}
