package gitstore

// Object files moved into and swept from the run's private git directory.

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/wfile"
)

// Import moves the objects of a step's object database (loose objects and
// packs; regular files only, nothing followed) into the repo by hard link,
// so the step's base stays readable once its spool entry is gone.
// The directories given a name are fsynced (the objects were when written).
func (r *Repo) Import(odb string) error {
	src := filepath.Join(odb, "objects")
	dst := filepath.Join(r.GitDir, "objects")
	linked := map[string]bool{}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if rel != "." && rel != "pack" && !isFanout(rel) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		to := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
			return err
		}
		linked[filepath.Dir(to)] = true
		if err := os.Link(p, to); err != nil && !errors.Is(err, fs.ErrExist) {
			return copyFile(p, to)
		}
		return nil
	})
	for d := range linked {
		if err == nil {
			err = wfile.SyncDir(d)
		}
	}
	return err
}

func isFanout(rel string) bool {
	if len(rel) != 2 {
		return false
	}
	_, err := strconv.ParseUint(rel, 16, 8)
	return err == nil
}

func copyFile(src, dst string) error {
	in, err := safefile.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := wfile.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(dst) // a half object under its name would pass as whole next time
	}
	return err
}

// SweepTemp removes the temporary objects (objects/xx/tmp_obj_*, and a
// batch-fsync add's objects/tmp_objdir-*/) a git that died (killed, or
// on a write the disk refused) left in the run's private git
// directory: git removes them only when it lives, and nothing runs git gc
// there. Through an os.Root on objects/, so a link planted there leads
// nowhere else. A fan-out directory unchanged since this process found
// none in it (swept) is not listed again.
func SweepTemp(runDir string) {
	objects := filepath.Join(runDir, Dir, "objects")
	root, err := os.OpenRoot(objects)
	if err != nil {
		return
	}
	defer root.Close()
	swept.Lock()
	defer swept.Unlock()
	known, clean := swept.dirs[objects], map[string]time.Time{}
	now := time.Now()
	settled, settledFine := now.Add(-racyMargin), now.Add(-fineRacyMargin)
	subs, _ := names(root, ".")
	for _, sub := range subs {
		if strings.HasPrefix(sub, "tmp_objdir-") {
			// a batch-fsync git add killed before it moved its objects
			// in (core.fsyncMethod=batch): the whole folder is garbage
			root.RemoveAll(sub)
			continue
		}
		if len(sub) != 2 {
			continue
		}
		fi, err := root.Lstat(sub)
		if err != nil || !fi.IsDir() {
			continue
		}
		m := fi.ModTime()
		if t, ok := known[sub]; ok && t.Equal(m) {
			clean[sub] = m
			continue
		}
		list, listed := names(root, sub)
		for _, n := range list {
			if strings.HasPrefix(n, "tmp_obj_") {
				root.Remove(sub + "/" + n)
			}
		}
		// a file made after the listing changes m, unless in m's own
		// clock tick: only a time well past is kept
		if listed && m.Before(settled) || listed && m.Nanosecond() != 0 && m.Before(settledFine) {
			clean[sub] = m
		}
	}
	if swept.dirs == nil {
		swept.dirs = map[string]map[string]time.Time{}
	}
	swept.dirs[objects] = clean
}

// swept holds, for each objects directory SweepTemp went through, the
// modification time of each fan-out directory it left with no temporary
// object: a file made there since changes it. Listing all 256 of a long
// run's every record cost 3 ms of CPU; the holder now lists those its
// last iteration wrote.
var swept struct {
	sync.Mutex
	dirs map[string]map[string]time.Time
}

// racyMargin is how old a directory's modification time must be to be
// kept in swept: more than a file system clock's tick. A time with a
// fraction of a second is a fine clock's (ext4, xfs, btrfs, tmpfs: the
// kernel's coarse clock, a tick of 1-10 ms), which fineRacyMargin covers;
// with 2 s for all, every directory an iteration wrote was listed again
// at each record of a run whose iterations are quick, and the cost of
// a record grew with the run (0.4 ms an iteration at 20, 0.8 at 40).
const (
	racyMargin     = 2 * time.Second
	fineRacyMargin = 100 * time.Millisecond
)

// names lists directory dir of root; ok is false when it cannot.
func names(root *os.Root, dir string) (n []string, ok bool) {
	d, err := root.Open(dir)
	if err != nil {
		return nil, false
	}
	defer d.Close()
	n, err = d.Readdirnames(-1)
	return n, err == nil
}
