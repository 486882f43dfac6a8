package store

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/loopkit/loopkit/internal/procid"
	"github.com/loopkit/loopkit/internal/safefile"
)

// SpoolMaxAge is how old a spool file must be before it may be removed.
const SpoolMaxAge = 24 * time.Hour

// SpoolEntry is a spool file name parsed: <ms>-<pid>-<hex>.<kind>.<ext>, or
// the ".<name>.tmp-N" a killed atomic write left.
type SpoolEntry struct {
	CreatedMs int64
	PID       int
	// Base is the entry's name without the stream suffix; Base+".json" is its meta.
	Base string
}

// ParseSpoolName parses a spool file name; ok is false for anything that is
// not a spool entry, which the cleaner then leaves alone.
func ParseSpoolName(name string) (e SpoolEntry, ok bool) {
	name = strings.TrimPrefix(name, ".")
	if i := strings.Index(name, ".tmp-"); i >= 0 {
		name = name[:i]
	}
	parts := strings.SplitN(name, ".", 3)
	if len(parts) < 3 || parts[1] == "" || parts[2] == "" {
		return e, false
	}
	f := strings.Split(parts[0], "-")
	if len(f) != 3 || !digits(f[0]) || !digits(f[1]) || !hexDigits(f[2]) {
		return e, false
	}
	ms, err1 := strconv.ParseInt(f[0], 10, 64)
	pid, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || pid <= 0 {
		return e, false
	}
	return SpoolEntry{CreatedMs: ms, PID: pid, Base: parts[0] + "." + parts[1]}, true
}

func digits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

func hexDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789abcdef") == ""
}

// SpoolResult is what a spool sweep removed (or would remove).
type SpoolResult struct {
	Files int
	Bytes int64
}

// SpoolSweep says which spool entries CleanSpool removes.
type SpoolSweep struct {
	Now    time.Time
	DryRun bool
	// Run, when set, sweeps that run's entries at any age, and entries
	// of any run whose writer died before it wrote their meta: the caller
	// holds the run's driver lock, so nothing of the run will record them.
	// Without Run, only entries older than SpoolMaxAge go.
	Run string
	// Gone, when set, decides that an entry's writer and its child's
	// group are gone (and may stop them: the driver's clean-up stops what a
	// crashed run left); by default both must have exited.
	Gone func(base string, m SpoolMeta) bool
	// Keep, when set, is asked once for each step entry whose meta names
	// its run, before its files go: an agent's transcript, tokens and cost
	// that no driver recorded; false leaves the entry for a later sweep.
	Keep func(base string, m SpoolMeta) bool
}

// CleanSpool is the one spool clean-up: loop-clean's age sweep and the
// driver's clean-up of a crashed run (o.Run). An entry goes once its
// writer is gone: neither its pid nor, from its meta, its child's process
// group is alive. Names that are not spool entries are left alone, and a
// meta that is not a regular file (a planted FIFO) is never waited on.
func CleanSpool(st *Store, o SpoolSweep) (SpoolResult, error) {
	var res SpoolResult
	root, err := os.OpenRoot(st.SpoolDir())
	if errors.Is(err, fs.ErrNotExist) {
		return res, nil
	}
	if err != nil {
		return res, err
	}
	defer root.Close()
	entries, err := fs.ReadDir(root.FS(), ".")
	if err != nil {
		return res, err
	}
	type verdict struct{ seen, remove bool }
	decided := map[string]verdict{} // by entry base: one meta read per entry
	for _, de := range entries {
		e, ok := ParseSpoolName(de.Name())
		// A directory entry is a step's base objects (<entry>.git).
		objects := de.IsDir() && strings.HasSuffix(de.Name(), ".git")
		if !ok || de.IsDir() && !objects {
			continue
		}
		info, err := de.Info()
		if err != nil || o.Run == "" && o.Now.Sub(info.ModTime()) <= SpoolMaxAge {
			continue
		}
		v := decided[e.Base]
		if !v.seen {
			v = verdict{seen: true, remove: o.decide(st, root, e)}
			decided[e.Base] = v
		}
		if !v.remove {
			continue
		}
		size := info.Size()
		if objects {
			size = spoolTreeBytes(st, de.Name())
		}
		if !o.DryRun {
			remove := root.Remove
			if objects {
				remove = root.RemoveAll
			}
			err := remove(de.Name())
			if objects && errors.Is(err, fs.ErrPermission) {
				// a folder of objects the agent narrowed (chmod 000)
				if err = openUp(root, st.SpoolDir(), de.Name()); err == nil {
					err = remove(de.Name())
				}
			}
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return res, err
			}
		}
		res.Files++
		res.Bytes += size
	}
	return res, nil
}

// spoolTreeBytes is the size of the files in a step's objects directory:
// its own size (4 KiB) was reported as freed for megabytes of objects.
func spoolTreeBytes(st *Store, name string) int64 {
	fd, err := unix.Open(filepath.Join(st.SpoolDir(), name), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0
	}
	return treeBytes(fd)
}

// decide reports whether entry e's files go.
func (o SpoolSweep) decide(st *Store, root *os.Root, e SpoolEntry) bool {
	m, hasMeta := readMeta(root, e)
	if o.Run != "" && hasMeta && m.RunID != o.Run {
		return false // another run's: its own driver records it
	}
	if o.Run != "" && !hasMeta {
		if _, err := root.Lstat(e.Base + ".json"); err == nil {
			return false // a meta that does not read (yet): whose it is, is not known
		}
	}
	base := filepath.Join(st.SpoolDir(), e.Base)
	gone := false
	if hasMeta && o.Gone != nil {
		gone = o.Gone(base, m)
	} else {
		gone = writerGone(e, m, hasMeta)
	}
	if !gone {
		return false
	}
	if o.Keep != nil && !o.DryRun && hasMeta && m.RunID != "" && strings.HasSuffix(e.Base, ".step") {
		return o.Keep(base, m)
	}
	return true
}

// writerGone reports whether the process that wrote a spool entry, and the
// process group of the child it ran, have both exited.
func writerGone(e SpoolEntry, m SpoolMeta, hasMeta bool) bool {
	pid, pgid := e.PID, 0
	var start uint64
	if hasMeta {
		pid, pgid, start = m.PID, m.PGID, m.PIDStart
	}
	// With its start time known, a pid reused by another process is gone.
	if pid == os.Getpid() || start == 0 && procid.Running(pid) || start != 0 && procid.Alive(pid, start) {
		return false
	}
	return !procid.GroupExists(pgid)
}

// readMeta is the entry's meta, when its writer wrote one (the name
// carries the writer's pid: a meta naming another is not its own). The
// spool is in the agent's reach: a meta that is a FIFO or a link is none.
func readMeta(root *os.Root, e SpoolEntry) (SpoolMeta, bool) {
	var m SpoolMeta
	f, err := root.OpenFile(e.Base+".json", os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return m, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return m, false
	}
	data, err := safefile.ReadAll(f, e.Base+".json", 1<<20)
	if err != nil || json.Unmarshal(data, &m) != nil || m.PID <= 0 || m.PID != e.PID {
		return SpoolMeta{}, false
	}
	return m, true
}
