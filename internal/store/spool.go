package store

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/loopkit/loopkit/internal/wfile"
)

// Resolve opens the store named by flag (--store / LOOP_STORE) or, when
// empty, the default store for the workspace around dir.
func Resolve(flag, dir string) (*Store, error) {
	if flag != "" {
		return Open(flag)
	}
	root, err := DefaultRoot(dir)
	if err != nil {
		return nil, err
	}
	return Open(root)
}

// SpoolMeta is the spool entry a running command leaves beside its streams,
// so a cleaner can tell whether the writer is gone and a driver can stop a
// process group left behind by a crash.
type SpoolMeta struct {
	PID  int `json:"pid"`
	PGID int `json:"pgid,omitempty"`
	// PIDStart and PGIDStart are the OS start times (internal/procid) of
	// the command and of the child leading the group: signal nothing whose
	// start time differs.
	PIDStart  uint64 `json:"pid_start,omitempty"`
	PGIDStart uint64 `json:"pgid_start,omitempty"`
	Command   string `json:"command"`
	RunID     string `json:"run_id,omitempty"`
	StartedAt int64  `json:"started_at"`
	// Of a step: its phase, the agent's program (argv[0]) and --format, so
	// that a step killed before it printed its record can be parsed.
	Phase   string `json:"phase,omitempty"`
	Program string `json:"program,omitempty"`
	Format  string `json:"format,omitempty"`
	// StepID is the step's id in the run's events (written once the agent
	// starts): the attempt a resume keeps of a killed step finishes it.
	StepID string `json:"step_id,omitempty"`
}

// NewSpool returns the base path of a new spool entry; streams are base+".stdout",
// base+".stderr" and so on, the entry's meta is base+".json".
func (s *Store) NewSpool(kind string) string {
	var rnd [4]byte
	rand.Read(rnd[:])
	name := fmt.Sprintf("%d-%d-%s.%s", time.Now().UnixMilli(), os.Getpid(), hex.EncodeToString(rnd[:]), kind)
	return filepath.Join(s.SpoolDir(), name)
}

// WriteSpoolMeta writes the entry's meta file: renamed into place so a
// reader never sees half of it, but not fsynced (it is a hint for cleaners).
func WriteSpoolMeta(base string, m SpoolMeta) error {
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return ReplaceFile(base+".json", append(data, '\n'), FileMode)
}

// UpdateSpoolMeta rewrites the meta WriteSpoolMeta wrote, once the child's
// group is known, in place: a file created and one freed less for every
// step and validation. The new meta only adds fields, so one write at
// offset 0 of at most a page covers the old bytes whole: a kill leaves the
// old meta or the new one, and a reader racing the copy fails to parse it
// and reads again, as for a meta not yet there. A meta that is not there,
// not a regular file, linked elsewhere too, or longer than the new one is
// replaced as WriteSpoolMeta does.
func UpdateSpoolMeta(base string, m SpoolMeta) error {
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	data = append(data, '\n')
	path := base + ".json"
	f, err := wfile.OpenFile(path, os.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return ReplaceFile(path, data, FileMode)
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || linked(fi) || fi.Size() > int64(len(data)) || len(data) > os.Getpagesize() {
		f.Close()
		return ReplaceFile(path, data, FileMode)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// linked: the file has another name too (a hard link someone made).
func linked(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || st.Nlink != 1
}
