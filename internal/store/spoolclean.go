package store

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/loopkit/loopkit/internal/procid"
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

// CleanSpool removes spool files older than SpoolMaxAge whose writer is gone:
// neither its pid nor, from the entry's meta, its child's process group is
// alive. Names that are not spool entries are left alone. keep, when not
// nil, is asked once for each such step entry (its base path and meta)
// before its files go: an agent's transcript, tokens and cost that no
// driver recorded; false leaves the entry for a later sweep.
func CleanSpool(st *Store, now time.Time, dryRun bool, keep func(base string, m SpoolMeta) bool) (SpoolResult, error) {
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
	gone := map[string]bool{} // by entry base: one meta read per entry
	kept := map[string]bool{}
	for _, de := range entries {
		e, ok := ParseSpoolName(de.Name())
		// A directory entry is a step's base objects (<entry>.git).
		objects := de.IsDir() && strings.HasSuffix(de.Name(), ".git")
		if !ok || de.IsDir() && !objects {
			continue
		}
		info, err := de.Info()
		if err != nil || now.Sub(info.ModTime()) <= SpoolMaxAge {
			continue
		}
		g, seen := gone[e.Base]
		if !seen {
			g = writerGone(root, e)
			gone[e.Base] = g
		}
		if !g {
			continue
		}
		if keep != nil && !dryRun && strings.HasSuffix(e.Base, ".step") {
			k, seen := kept[e.Base]
			if !seen {
				k = true
				if m, ok := readMeta(root, e); ok && m.RunID != "" {
					k = keep(filepath.Join(st.SpoolDir(), e.Base), m)
				}
				kept[e.Base] = k
			}
			if !k {
				continue
			}
		}
		if !dryRun {
			remove := root.Remove
			if objects {
				remove = root.RemoveAll
			}
			if err := remove(de.Name()); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return res, err
			}
		}
		res.Files++
		res.Bytes += info.Size()
	}
	return res, nil
}

// writerGone reports whether the process that wrote a spool entry, and the
// process group of the child it ran, have both exited.
func writerGone(root *os.Root, e SpoolEntry) bool {
	pid, pgid := e.PID, 0
	var start uint64
	if m, ok := readMeta(root, e); ok {
		pid, pgid, start = m.PID, m.PGID, m.PIDStart
	}
	// With its start time known, a pid reused by another process is gone.
	if pid == os.Getpid() || start == 0 && procid.Running(pid) || start != 0 && procid.Alive(pid, start) {
		return false
	}
	return !procid.GroupExists(pgid)
}

// readMeta is the entry's meta, when its writer wrote one (the name
// carries the writer's pid: a meta naming another is not its own).
func readMeta(root *os.Root, e SpoolEntry) (SpoolMeta, bool) {
	var m SpoolMeta
	data, err := root.ReadFile(e.Base + ".json")
	if err != nil || json.Unmarshal(data, &m) != nil || m.PID <= 0 || m.PID != e.PID {
		return SpoolMeta{}, false
	}
	return m, true
}
