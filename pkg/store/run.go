package store

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/loopkit/loopkit/pkg/record"
)

// NewRunID returns a fresh run id that sorts by creation time:
// 20261123-140502-123-<name>-<4 hex>, the name part omitted when empty.
func NewRunID(name string, now time.Time) string {
	var rnd [2]byte
	rand.Read(rnd[:])
	ts := now.UTC().Format("20060102-150405.000")
	ts = strings.Replace(ts, ".", "-", 1)
	slug := Slug(name)
	if slug != "" {
		if len(slug) > 64 {
			slug = slug[:64]
		}
		return ts + "-" + slug + "-" + hex.EncodeToString(rnd[:])
	}
	return ts + "-" + hex.EncodeToString(rnd[:])
}

// Slug lowercases s and keeps [a-z0-9], folding everything else into single
// dashes, so a name or file name can be part of a run id or branch name.
func Slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimRight(b.String(), "-")
}

// ReadRun reads a run's run.json; ErrNoSuchRun when the run does not exist.
func (s *Store) ReadRun(id string) (*record.Run, error) {
	data, err := os.ReadFile(s.RunPath(id, RunFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNoSuchRun, id)
	}
	if err != nil {
		return nil, err
	}
	r := &record.Run{}
	if err := json.Unmarshal(data, r); err != nil {
		return nil, fmt.Errorf("read %s: %w", s.RunPath(id, RunFile), err)
	}
	if r.Settings == nil {
		r.Settings = map[string]string{}
	}
	return r, nil
}

// WriteRun rewrites run.json atomically.
func (s *Store) WriteRun(r *record.Run) error {
	data, err := record.MarshalIndent(r)
	if err != nil {
		return err
	}
	return WriteFileAtomic(s.RunPath(r.RunID, RunFile), data, FileMode)
}

// RunIDs lists the ids of the run directories (tombstones and stray names
// excluded), sorted ascending; new ids sort by creation time.
func (s *Store) RunIDs() ([]string, error) {
	entries, err := os.ReadDir(s.RunsDir())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(entries))
	for _, e := range entries {
		if ValidRunID(e.Name()) == nil && !strings.HasPrefix(e.Name(), ".") {
			ids = append(ids, e.Name())
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// NewRun returns the run.json of a new run.
func NewRun(id, name string, now int64) *record.Run {
	return &record.Run{
		SchemaVersion:  1,
		RunID:          id,
		Name:           name,
		Status:         record.RunRunning,
		Settings:       map[string]string{},
		ArtifactStatus: "draft",
		CreatedAt:      now,
		UpdatedAt:      now,
	}
}

// CreateRun makes the run's directory, run.json and RUN_CREATED event. It
// returns os.ErrExist when the run already exists. The caller holds no lock:
// the append lock is taken here once the directory exists.
func (s *Store) CreateRun(r *record.Run) error {
	if err := s.Init(); err != nil {
		return err
	}
	dir := s.RunDir(r.RunID)
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return fmt.Errorf("create run: %w", err)
	}
	l, err := s.LockAppend(r.RunID)
	if err != nil {
		return err
	}
	defer l.Unlock()
	if s.RunExists(r.RunID) {
		return os.ErrExist
	}
	if err := s.WriteRun(r); err != nil {
		return err
	}
	return s.AppendEvent(record.Event{TS: r.CreatedAt, RunID: r.RunID, Type: record.EventRunCreated})
}

// AppendEvent appends one event to the run's events.jsonl (append lock held).
func (s *Store) AppendEvent(e record.Event) error {
	line, err := record.Marshal(e)
	if err != nil {
		return err
	}
	return AppendLine(s.RunPath(e.RunID, EventsFile), line)
}

// LastIteration returns the last committed IterationLog of a run, or nil.
func (s *Store) LastIteration(id string) (*record.IterationLog, error) {
	lines, err := TailLines(s.RunPath(id, IterationsFile), 1)
	if err != nil || len(lines) == 0 {
		return nil, err
	}
	it := &record.IterationLog{}
	if err := json.Unmarshal(lines[0], it); err != nil {
		return nil, fmt.Errorf("%s: last line: %w", s.RunPath(id, IterationsFile), err)
	}
	return it, nil
}
