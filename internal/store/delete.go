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
	"time"

	"golang.org/x/sys/unix"

	"github.com/loopkit/loopkit/internal/gitrun"
	"github.com/loopkit/loopkit/internal/procid"
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
	// removeAll removes a tombstone (a test stands in for NFS or FUSE)
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
	return &Deleter{st: st, root: root, dir: st.RunsDir(), now: time.Now, removeAll: root.RemoveAll}, nil
}

// Close releases the runs/ directory.
func (d *Deleter) Close() error { return d.root.Close() }

// Delete removes run id if it is still as decided (updated_at unchanged, no
// lock held), and returns the bytes freed. It renames the run to a tombstone
// first: a crash at any point leaves the run whole or a tombstone, never a
// half-deleted directory under the run's name.
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
	// The locks go before the removal: on NFS or FUSE a file still open
	// is not removed but renamed (.nfs*, .fuse_hidden*), and its
	// directory, not empty, would stay.
	unlock()
	if err != nil {
		return 0, err
	}
	d.forget(tomb)
	runconfig.Forget(d.st.RunDir(id)) // its settings, kept outside the store
	n := d.Bytes(tomb)
	if err := d.removeAll(tomb); err != nil {
		return n, fmt.Errorf("remove tombstone %s: %w", tomb, err)
	}
	return n, nil
}

// entomb renames run id to a tombstone, durably, and returns its name.
func (d *Deleter) entomb(id string) (string, error) {
	tomb := fmt.Sprintf("%s%s-%d", TombPrefix, id, d.now().UnixMilli())
	if err := d.root.Rename(id, tomb); err != nil {
		return "", fmt.Errorf("rename %s to a tombstone: %w", id, err)
	}
	return tomb, d.syncRuns()
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
// returns how many and the bytes freed.
func (d *Deleter) FinishTombstones() (int, int64, error) {
	tombs, err := d.Tombstones()
	if err != nil {
		return 0, 0, err
	}
	var freed int64
	for i, t := range tombs {
		d.forget(t)
		n := d.Bytes(t)
		if err := d.removeAll(t); err != nil {
			return i, freed, fmt.Errorf("remove tombstone %s: %w", t, err)
		}
		freed += n
	}
	return len(tombs), freed, nil
}

// forget removes what the state directory keeps of the run a tombstone
// held (its git config hash): a deleted run leaves nothing behind. A
// failure leaves one small file named by a hash, so it is not an error.
func (d *Deleter) forget(tomb string) {
	rest, ok := strings.CutPrefix(tomb, TombPrefix)
	i := strings.LastIndexByte(rest, '-')
	if !ok || i <= 0 {
		return
	}
	_ = gitrun.Forget(d.st.RunDir(rest[:i]))
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
